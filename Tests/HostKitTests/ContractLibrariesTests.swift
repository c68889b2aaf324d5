@testable import HostKit
import TestSupport
import Testing

/// What the host refuses when it maps the contract libraries of a plugin served from a process of
/// its own (``ContractLibraries``): the names come from the child, and choose only among the libraries
/// the plugin's file links. (What it maps is tested through `host`, which links no fixture contract
/// library: `HostCommandTests`' own-process contract tests.)
@Suite struct ContractLibrariesTests {
    /// The echo fixture's file as a load finds it (copied into the load's folder), given to `body`.
    private func withEchoCandidate(_ body: (PluginCandidate) throws -> Void) throws {
        let pipeline = LoadPipeline(discovery: PluginDiscovery())
        defer { pipeline.finish() }
        try body(try pipeline.discover(file: BuiltPlugins.path("FixtureEchoPlugin")).get())
    }

    @Test func aContractLibraryThePluginsFileDoesNotLinkIsRefusedNamingIt() throws {
        try withEchoCandidate { candidate in
            let result = ContractLibraries.open(["PluginAPI", "PluginActors", "FixtureNoSuchContracts"], for: candidate)
            guard case let .failure(error) = result else { Issue.record("a library the plugin does not link was accepted"); return }
            #expect("\(error)".contains("records the contract library libFixtureNoSuchContracts.so, which its file does not link"),
                    "\(error)")
            #expect("\(error)".hasPrefix(candidate.realPath), "\(error)")
        }
    }

    @Test func aNameThatIsNoLibraryNameIsRefusedAndNothingIsLookedUp() throws {
        try withEchoCandidate { candidate in
            let result = ContractLibraries.open(["../../etc/libc"], for: candidate)
            guard case let .failure(error) = result else { Issue.record("a path was taken for a library name"); return }
            #expect("\(error)".contains("named a library that is no library name"), "\(error)")
        }
    }
}
