import Foundation
@testable import DynamicLoading
import HostKit
import PluginAPI
import SampleContracts
import TestSupport
import Testing

/// The operator's check of the files a load maps (`PluginDiscovery.fileCheck`), and the digest
/// list that is one (`DigestAllowlist`): real plugin files, lists written by the real `sha256sum`.
@Suite struct FileCheckTests {
    /// `sha256sum NAMES...` run in `folder`: the list as the operator's release tool writes it.
    private static func sha256sum(_ names: [String], in folder: TemporaryFolder) throws -> String {
        try sha256sum(names, inFolder: folder.path)
    }

    /// `sha256sum ARGUMENTS...` run in the folder at `path` (the shell's folder: a `..` in an
    /// argument is the kernel's).
    static func sha256sum(_ arguments: [String], inFolder path: String) throws -> String {
        let (status, text) = try runTool("/usr/bin/sha256sum", arguments, in: path)
        #expect(status == 0)
        return text
    }

    /// The digest `sha256sum` gives the file `name` in `folder`.
    private static func digest(_ name: String, in folder: TemporaryFolder) throws -> String {
        String(try sha256sum([name], in: folder).prefix(64))
    }

    /// A folder with copies of the clock and greeter sample plugins: files of their own, which no
    /// other test's load has opened (a file is opened once per process, and checked when it is).
    private static func plugins() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.copy("ClockPlugin", as: "libClockPlugin.so")
        try folder.copy("GreeterPlugin", as: "libGreeterPlugin.so")
        return folder
    }

    @Test func aListedPluginLoadsAndAnUnlistedOneIsRefusedNamingItsDigest() throws {
        let folder = try Self.plugins()
        let list = try folder.write("SHA256SUMS", Array(try Self.sha256sum(["libClockPlugin.so"], in: folder).utf8))
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: try DigestAllowlist(contentsOf: list)))
        defer { host.shutdown() }
        let report = host.load([.directory(folder.path)])
        #expect(report.loaded.compactMap(\.metadata?.name) == ["clock"], "\(report.text)")
        let greeter = try Self.digest("libGreeterPlugin.so", in: folder)
        #expect(report.problems == [.fileRefused(path: folder.file("libGreeterPlugin.so"),
                                                 reason: "it is not in the digest list \(list); its SHA-256 is \(greeter)")])
        #expect(host.locator.getService(key: SampleKeys.greeter) == nil)
    }

    @Test func aFileWithAnotherDigestThanItsListedOneIsRefused() throws {
        let folder = try Self.plugins()
        let listed = try Self.sha256sum(["libClockPlugin.so", "libGreeterPlugin.so"], in: folder)
        // The greeter's line names the clock's digest: the file at that path is not the one meant.
        let clock = try Self.digest("libClockPlugin.so", in: folder), greeter = try Self.digest("libGreeterPlugin.so", in: folder)
        let list = try folder.write("SHA256SUMS", Array(listed.replacing(greeter, with: clock).utf8))
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: try DigestAllowlist(contentsOf: list)))
        defer { host.shutdown() }
        let report = host.load([.directory(folder.path)])
        #expect(report.loaded.compactMap(\.metadata?.name) == ["clock"], "\(report.text)")
        #expect(report.problems.map(\.description) == [
            "\(folder.file("libGreeterPlugin.so")): refused by the host's file check: its SHA-256 is \(greeter), "
                + "but the digest list \(list) says \(clock)",
        ])
    }

    /// The list is read again as each reload begins: a file refused before is loaded once listed,
    /// and a list that cannot be read then refuses what that reload would map and keeps what runs.
    @Test func theListIsReadAgainAtEachReload() throws {
        let folder = try Self.plugins()
        let list = try folder.write("SHA256SUMS", Array(try Self.sha256sum(["libClockPlugin.so"], in: folder).utf8))
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: try DigestAllowlist(contentsOf: list)))
        defer { host.shutdown() }
        #expect(host.load([.directory(folder.path)]).loaded.count == 1)

        try folder.write("SHA256SUMS", Array(try Self.sha256sum(["libClockPlugin.so", "libGreeterPlugin.so"], in: folder).utf8))
        let listed = host.reload()
        #expect(listed.entries.map(\.summary).contains { $0.hasPrefix("added greeter") }, "\(listed.entries.map(\.summary))")
        #expect(host.locator.getService(key: SampleKeys.greeter) != nil)

        try FileManager.default.removeItem(atPath: list)
        try folder.copy("NotesPlugin", as: "libNotesPlugin.so")
        let unreadable = host.reload()
        let refused = try #require(unreadable.entries.first { $0.action == .refused }, "\(unreadable.entries.map(\.summary))")
        #expect(refused.error == .fileRefused(path: folder.file("libNotesPlugin.so"), reason:
            "the file check could not begin this load: the digest list \(list) does not exist"))
        #expect(host.startedPlugins.sorted() == ["clock", "greeter"])
    }

    /// What the check reads is the load's own copy: the original rewritten while the check runs
    /// (another plugin's bytes put there) does not reach the image; the plugin that runs is the one
    /// checked.
    @Test func theCheckReadsTheBytesThatAreMapped() throws {
        let folder = try Self.plugins()
        let clock = folder.file("libClockPlugin.so")
        let notes = try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path("NotesPlugin")))
        let check = RecordingCheck { file in
            if file.path == clock { try notes.write(to: URL(fileURLWithPath: clock)) }
        }
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: check))
        defer { host.shutdown() }
        let report = host.load([.file(clock)])
        #expect(report.loaded.compactMap(\.metadata?.name) == ["clock"], "\(report.text)")
        let seen = try #require(check.digests[clock])
        let original = try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path("ClockPlugin")))
        #expect(seen == SHA256.digest(Array(original)), "the check read the clock's bytes")
        #expect(host.locator.getService(key: SampleKeys.clock) != nil)
    }

    /// A check that keeps the file it is shown and reads it later reads nothing: the descriptor it
    /// was handed may name another file by then.
    @Test func aFileKeptPastItsCheckCannotBeRead() throws {
        let folder = try Self.plugins()
        let check = RecordingCheck()
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: check))
        defer { host.shutdown() }
        #expect(host.load([.file(folder.file("libClockPlugin.so"))]).loaded.count == 1)
        let kept = try #require(check.files.first)
        #expect(throws: (any Error).self) { try kept.read { _ in } }
    }

    /// A check's words reach the report escaped, as every string from outside does.
    @Test func aChecksWordsArePrintedEscaped() throws {
        struct Hostile: Error, CustomStringConvertible { var description: String { "no\u{1b}[2J\nway" } }
        let folder = try Self.plugins()
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: RecordingCheck { _ in throw Hostile() }))
        defer { host.shutdown() }
        let report = host.load([.file(folder.file("libClockPlugin.so"))])
        let problem = try #require(report.problems.first)
        #expect(problem.description.hasSuffix("refused by the host's file check: no\\u{1B}[2J\\nway"), "\(problem)")
    }

    /// The list in the forms `sha256sum` writes (relative and absolute paths, binary mode's `*`, a
    /// name with a newline escaped), and what it refuses to read, naming the line.
    @Test func theListIsReadAsSha256sumWritesIt() throws {
        let folder = try Self.plugins()
        try FileManager.default.createDirectory(atPath: folder.file("sub"), withIntermediateDirectories: true)
        let odd = try folder.copy("ClockPlugin", as: "sub/odd\nname.so")
        let written = try Self.sha256sum(["libClockPlugin.so", folder.file("libGreeterPlugin.so"), "sub/odd\nname.so"], in: folder)
        // Binary mode's `*` before one path, as `sha256sum -b` writes it.
        let listed = written.replacing("  \(folder.file("libGreeterPlugin.so"))", with: " *\(folder.file("libGreeterPlugin.so"))")
        #expect(listed != written)
        #expect(listed.hasSuffix("  sub/odd\\nname.so\n") && listed.split(separator: "\n").last?.hasPrefix("\\") == true,
                "\(listed)")
        let list = try folder.write("SHA256SUMS", Array(("# release 1.0\n\n" + listed).utf8))
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: try DigestAllowlist(contentsOf: list)))
        defer { host.shutdown() }
        let report = host.load([.file(folder.file("libClockPlugin.so")), .file(folder.file("libGreeterPlugin.so"))])
        #expect(report.problems.isEmpty, "\(report.text)")
        // The clock under an odd name is the same plugin: refused as a duplicate, not by its digest.
        let again = host.load([.file(odd)])
        #expect(again.problems.map(\.description).allSatisfy { !$0.contains("file check") }, "\(again.text)")
        // And a file the list does not name is refused by it.
        let notes = host.load([.file(try folder.copy("NotesPlugin", as: "libNotesPlugin.so"))])
        #expect(notes.problems.map(\.description).allSatisfy { $0.contains("file check") } && notes.problems.count == 1,
                "\(notes.text)")

        let clock = try Self.digest("libClockPlugin.so", in: folder)
        for (text, line) in [("\(clock) libClockPlugin.so\n", 1), ("\(clock)  a\n\(clock.dropLast())  b\n", 2),
                             ("\(clock)  a\n\(try Self.digest("libGreeterPlugin.so", in: folder))  ./a\n", 2)] {
            try folder.write("bad", Array(text.utf8))
            let error = #expect(throws: DigestAllowlist.Unusable.self) { try DigestAllowlist(contentsOf: folder.file("bad")) }
            #expect(error?.description.contains("(line \(line))") == true, "\(String(describing: error))")
        }
        // A list others may change is no list of what the operator meant.
        try folder.write("open", Array("\(clock)  libClockPlugin.so\n".utf8), mode: 0o666)
        let open = #expect(throws: DigestAllowlist.Unusable.self) { try DigestAllowlist(contentsOf: folder.file("open")) }
        #expect(open?.reason.hasPrefix("is refused") == true, "\(String(describing: open))")
    }

    /// HostKit's SHA-256 against the standard's vectors, and against `sha256sum` on every sample
    /// plugin (files of megabytes, fed in the pieces a check reads).
    @Test func theDigestIsSha256() throws {
        #expect(SHA256.hex(SHA256.digest([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(SHA256.digest(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var million = SHA256()
        for _ in 0 ..< 1000 { million.update([UInt8](repeating: UInt8(ascii: "a"), count: 1000)) }
        #expect(SHA256.hex(million.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let folder = try TemporaryFolder()
        for product in ["ClockPlugin", "GreeterPlugin", "NotesPlugin", "AccountPlugin"] {
            try folder.copy(product, as: "lib\(product).so")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.file("lib\(product).so")))
            // In odd pieces, so that blocks are split every way.
            var hash = SHA256()
            var start = 0, size = 1
            while start < bytes.count {
                hash.update(Array(bytes[start ..< min(bytes.count, start + size)]))
                start += size
                size = size * 7 % 9973 + 1
            }
            #expect(SHA256.hex(hash.finalize()) == (try Self.digest("lib\(product).so", in: folder)), "\(product)")
        }
    }
}

/// A check that accepts (or does what `body` says) and records what it was shown: each file, and
/// the SHA-256 of what it read, by path.
private final class RecordingCheck: PluginFileCheck, @unchecked Sendable {
    // @unchecked: `lock` guards `seen`; a test's check runs on the loading thread.
    private let lock = NSLock()
    private var seen: [(file: PluginFile, digest: [UInt8])] = []
    private let body: @Sendable (PluginFile) throws -> Void

    init(_ body: @escaping @Sendable (PluginFile) throws -> Void = { _ in }) {
        self.body = body
    }

    var files: [PluginFile] { lock.withLock { seen.map(\.file) } }
    var digests: [String: [UInt8]] { lock.withLock { Dictionary(seen.map { ($0.file.path, $0.digest) }) { $1 } } }

    func check(_ file: PluginFile) throws {
        try body(file)
        let digest = try file.sha256()
        lock.withLock { seen.append((file, digest)) }
    }
}
