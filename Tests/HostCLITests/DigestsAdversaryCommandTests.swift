import Foundation
import TestSupport
import Testing

/// `--digests FILE` as a careless operator or an adversary gives it: a list that is no regular file,
/// a refused file whose name carries escape sequences.
extension HostCommandTests {
    /// A list that is a FIFO (`mkfifo`, or a shell's `<(...)`), which no one writes: opened and read to
    /// its end, `host` would wait for ever at start, and at each reload. It is said to be unreadable.
    /// Bounded at 60 s, killed after: the hang is the point, and generous for a busy machine.
    @Test func aListThatIsAFIFOIsRefusedWithoutAHang() async throws {
        let folder = try TemporaryFolder()
        let list = folder.file("SHA256SUMS")
        #expect(mkfifo(list, 0o600) == 0)
        let child = try Child(["check", "--plugins", plugin("ClockPlugin"), "--digests", list])
        let exited = try await poll(atMost: .seconds(60)) { !child.process.isRunning }
        if !exited { kill(child.process.processIdentifier, SIGKILL) }
        child.process.waitUntilExit()
        #expect(exited, "host hung reading the list \(list)")
        #expect(child.process.terminationStatus == 2, "\(child.errors)")
        #expect(child.errors.contains("the digest list \(list) cannot be read"), "\(child.errors)")
    }

    /// A plugin's own process is given the list and checks with it: the plugin listed but not the
    /// contract library it brings is refused there, by the child (its words come back wrapped), before
    /// the host maps the library.
    @Test func aPluginsOwnProcessChecksWithTheSameList() async throws {
        let folder = try TemporaryFolder()
        try folder.copy("FixtureEchoPlugin", as: "libFixtureEchoPlugin.so")
        try folder.copy("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        let list = try folder.write("SHA256SUMS", Array(SHA256Sum.of(["libFixtureEchoPlugin.so"], in: folder).utf8))
        let run = try await host(["check", "--own-process", "libFixtureEchoPlugin.so",
                                  "--plugins", folder.file("libFixtureEchoPlugin.so"), "--digests", list])
        #expect(run.status == 1, "\(run.output)")
        #expect(run.errors.contains("not served from a process of its own: \(folder.file("libFixtureEchoPlugin.so")): not loaded, "
                                    + "the library it links libFixtureRemoteContracts.so (\(folder.file("libFixtureRemoteContracts.so"))) "
                                    + "is refused: it is not in the digest list \(list)"), "\(run.errors)")
    }

    /// A file refused by the list is named, escaped (its name carries a terminal escape sequence),
    /// with its digest.
    @Test func aRefusedFileIsNamedEscapedWithItsDigest() async throws {
        let folder = try TemporaryFolder()
        let name = "evil\u{1B}[2J.so"
        try folder.copy("ClockPlugin", as: name)
        let list = try folder.write("SHA256SUMS", Array("# nothing\n".utf8))
        let digest = String(SHA256Sum.of([name], in: folder).prefix(64))
        let run = try await host(["check", "--plugins", folder.path, "--digests", list])
        #expect(run.status == 1, "\(run.output)")
        #expect(!run.errors.contains("\u{1B}"), "\(run.errors)")
        #expect(run.errors.contains("\(folder.path)/evil\\u{1B}[2J.so: refused by the host's file check: it is not in the "
                                    + "digest list \(list); its SHA-256 is \(digest)"), "\(run.errors)")
    }
}

/// `sha256sum NAMES...`'s output, run in `folder`.
private enum SHA256Sum {
    /// What `sha256sum NAMES` prints in `folder`: the list an operator writes.
    static func of(_ names: [String], in folder: TemporaryFolder) -> String {
        (try? runTool("/usr/bin/sha256sum", names, in: folder.path).output) ?? ""
    }
}
