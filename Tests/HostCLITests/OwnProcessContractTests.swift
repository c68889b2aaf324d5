import Foundation
import TestSupport
import Testing

/// A plugin in a process of its own is never opened in the host, but the host needs the types of its
/// distributed contract: it maps the contract library the plugin links, the copy an in-process load
/// would use. The `host` executable links no fixture contract library (the test process does, so these
/// tests go through `host`): whatever of FixtureRemoteContracts is in it, the load mapped.
extension HostCommandTests {
    /// The file names of the echo fixtures, as `--own-process` takes them.
    private func fileName(_ product: String) -> String { URL(fileURLWithPath: plugin(product)).lastPathComponent }

    /// `--plugins` for each of `products`.
    private func pluginArguments(_ products: [String]) -> [String] { products.flatMap { ["--plugins", plugin($0)] } }

    /// `host run --own-process '*'` with the echo plugin alone: nothing in the host links its contract
    /// library, so the host maps it and serves the plugin from its process (before, it refused the
    /// plugin: "the types of 'fixture.echo' (FixtureRemoteContracts.Echo) are not in this process").
    @Test func aDistributedPluginAloneInAProcessOfItsOwnIsServedWithItsContractLibraryLoadedInTheHost() async throws {
        let run = try await host(["run", "--own-process", "*", "--heartbeat", "0"] + pluginArguments(["FixtureEchoPlugin"]))
        #expect(run.status == 0, "\(run.output) \(run.errors)")
        #expect(!run.errors.contains("not in this process"), "\(run.errors)")
        // The slot table: the echo's key, served by the plugin's process.
        let slot = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("fixture.echo ") }, "\(run.output)")
        #expect(slot.contains("\(fileName("FixtureEchoPlugin"))#"), "\(slot)")
        #expect(run.output.contains("stopped fixture-echo\n"), "\(run.output)")
    }

    /// Two plugins of one contract, each in a process of its own and each in a folder of its own beside
    /// its own copy of the contract library: the host maps the copy of the first, and uses it for the
    /// second instead of mapping another (the two versions of the echo: the second is then refused as
    /// the same plugin, after its keys were remade from the first copy's types).
    @Test func pluginsOfOneContractEachBesideItsOwnCopyMapOneCopyInTheHost() async throws {
        let one = try TemporaryFolder(), two = try TemporaryFolder()
        try one.copy("FixtureEchoPlugin", as: "libFixtureEchoPlugin.so")
        try one.copy("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        try two.copy("FixtureEchoPluginTwo", as: "libFixtureEchoPluginTwo.so")
        try two.copy("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        let child = try Child(["serve", "--own-process", "*", "--heartbeat", "0", "--plugins", one.path, "--plugins", two.path])
        let serving = try await poll(atMost: .seconds(120)) { child.output.contains("serving 1 plugin(s)") }
        try #require(serving, "stdout: \(child.output)\nstderr: \(child.errors)")
        #expect(!child.errors.contains("not in this process"), "\(child.errors)")
        #expect(child.errors.contains("libFixtureEchoPluginTwo.so"), "the second version was not refused: \(child.errors)")
        #expect(Self.mappedCopies(of: "libFixtureRemoteContracts.so", in: child.process.processIdentifier).count == 1,
                "\(child.errors)")
    }

    /// A contract library the host mapped by its path for a plugin of its own process answers to no
    /// name the loader binds: a plugin loaded in process by a later reload, which would bring its own
    /// copy, is refused naming the library instead of mapping a second copy; the host serves on.
    @Test func aPluginInProcessThatWouldMapASecondCopyOfAContractLibraryIsRefusedNamingIt() async throws {
        let folder = try TemporaryFolder()
        try folder.copy("FixtureEchoPlugin", as: "libFixtureEchoPlugin.so")
        try folder.copy("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        let child = try Child(["serve", "--own-process", "libFixtureEchoPlugin.so", "--heartbeat", "0", "--plugins", folder.path])
        let serving = try await poll(atMost: .seconds(120)) { child.output.contains("serving 1 plugin(s)") }
        try #require(serving, "stdout: \(child.output)\nstderr: \(child.errors)")
        let user = try folder.install("FixtureEchoUserPlugin", as: "libFixtureEchoUserPlugin.so")
        #expect(kill(child.process.processIdentifier, SIGHUP) == 0)
        let refusal = "\(user): not loaded, the library it links libFixtureRemoteContracts.so"
        let refused = try await poll(atMost: .seconds(120)) { child.errors.contains(refusal) }
        #expect(refused, "stdout: \(child.output)\nstderr: \(child.errors)")
        #expect(child.errors.contains("another copy of it is mapped in this process already"), "\(child.errors)")
        #expect(child.process.isRunning, "\(child.errors)")
        #expect(Self.mappedCopies(of: "libFixtureRemoteContracts.so", in: child.process.processIdentifier).count == 1,
                "\(child.errors)")
    }

    /// The echo served from its own process, its user in the host's: the user maps the contract
    /// library (plugins in process are opened first), and the host uses that copy for the echo's keys
    /// instead of mapping a second one.
    @Test func aContractLibraryThePluginsInProcessBroughtIsNotMappedASecondTime() async throws {
        let child = try Child(["serve", "--own-process", fileName("FixtureEchoPlugin"), "--heartbeat", "0"]
                              + pluginArguments(["FixtureEchoPlugin", "FixtureEchoUserPlugin"]))
        let serving = try await poll(atMost: .seconds(120)) { child.output.contains("serving 2 plugin(s)") }
        try #require(serving, "stdout: \(child.output)\nstderr: \(child.errors)")
        #expect(Self.mappedCopies(of: "libFixtureRemoteContracts.so", in: child.process.processIdentifier).count == 1,
                "\(child.errors)")
    }

    /// The distinct files named `file` that process `pid` has mapped (`/proc/PID/maps`: device and
    /// inode, then the path), each once however many segments it has.
    static func mappedCopies(of file: String, in pid: Int32) -> Set<String> {
        // Read to its end: `String(contentsOfFile:)` stops at the first page of a file of /proc.
        let bytes = FileHandle(forReadingAtPath: "/proc/\(pid)/maps").flatMap { try? $0.readToEnd() } ?? Data()
        let maps = String(decoding: bytes, as: UTF8.self)
        return Set(maps.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5].hasSuffix("/" + file) else { return nil }
            return "\(fields[3]) \(fields[4])"
        })
    }
}
