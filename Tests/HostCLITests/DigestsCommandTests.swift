import Foundation
import TestSupport
import Testing

/// `--digests FILE`: the host maps only files the operator's `sha256sum` list names with their
/// digest, plugins and the libraries they bring, in a `host` of its own (whose process has not
/// loaded the echo fixture's contract library, so that library is newly mapped and checked).
extension HostCommandTests {
    /// A folder with the echo fixture and the contract library it brings beside it, and `sha256sum
    /// NAMES` written there as SHA256SUMS.
    private func echoFolder(listing names: [String]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.copy("FixtureEchoPlugin", as: "libFixtureEchoPlugin.so")
        try folder.copy("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = names
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        process.standardOutput = FileHandle(forWritingAtPath: try folder.write("SHA256SUMS", []))
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return folder
    }

    @Test func aLibraryThePluginBringsMustBeListedToo() async throws {
        let folder = try echoFolder(listing: ["libFixtureEchoPlugin.so"])
        let refused = try await host(["check", "--plugins", folder.file("libFixtureEchoPlugin.so"),
                                      "--digests", folder.file("SHA256SUMS")])
        #expect(refused.status == 1, "\(refused.output)")
        let line = try #require(refused.errorLines.first { $0.contains("libFixtureRemoteContracts.so") }, "\(refused.errors)")
        #expect(line.contains("not loaded, the library it links libFixtureRemoteContracts.so ("
                              + folder.file("libFixtureRemoteContracts.so") + ") is refused: it is not in the digest list "
                              + folder.file("SHA256SUMS") + "; its SHA-256 is "), "\(line)")

        let listed = try echoFolder(listing: ["libFixtureEchoPlugin.so", "libFixtureRemoteContracts.so"])
        let loaded = try await host(["check", "--plugins", listed.file("libFixtureEchoPlugin.so"),
                                     "--digests", listed.file("SHA256SUMS")])
        #expect(loaded.status == 0, "\(loaded.errors)")
        #expect(loaded.output.contains("loaded fixture-echo 1.0.0"), "\(loaded.output)")
    }

    /// A plugin in a process of its own is checked by the host, and by its process (which is given
    /// the same list): it loads and serves when listed.
    @Test func aListedPluginServesFromAProcessOfItsOwn() async throws {
        let folder = try echoFolder(listing: ["libFixtureEchoPlugin.so", "libFixtureRemoteContracts.so"])
        let run = try await host(["check", "--own-process", "libFixtureEchoPlugin.so",
                                  "--plugins", folder.file("libFixtureEchoPlugin.so"), "--digests", folder.file("SHA256SUMS")])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("in a process of its own"), "\(run.output)")
    }

    @Test func aListThatCannotBeUsedIsAUsageError() async throws {
        let folder = try TemporaryFolder()
        let missing = try await host(["check", "--plugins", plugin("ClockPlugin"), "--digests", folder.file("none")])
        #expect(missing.status == 2)
        #expect(missing.errorLines.first == "host: --digests: the digest list \(folder.file("none")) does not exist", "\(missing.errors)")
        let bad = try folder.write("bad", Array("not a digest  libClockPlugin.so\n".utf8))
        let malformed = try await host(["check", "--plugins", plugin("ClockPlugin"), "--digests", bad])
        #expect(malformed.status == 2)
        #expect(malformed.errors.contains("(line 1): write it with sha256sum"), "\(malformed.errors)")
    }
}
