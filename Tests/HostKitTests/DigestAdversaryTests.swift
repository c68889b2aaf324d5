import Foundation
@testable import DynamicLoading
@testable import HostKit
import TestSupport
import Testing

/// An adversary's pass over the digest list (`DigestAllowlist`, PH-0032): with a list, no file is
/// mapped unless the list names it with its SHA-256, and what was hashed is what is mapped. Each test
/// tries one door: a file the host remembers, a library mapped where it lies, a list as operators
/// write them (on Windows, with odd names, through a symlinked folder), the digest itself.
@Suite struct DigestAdversaryTests {
    /// `sha256sum ARGUMENTS` run in `folder`, as the operator's release tool writes the list.
    private static func sha256sum(_ arguments: [String], in folder: String) throws -> String {
        try FileCheckTests.sha256sum(arguments, inFolder: folder)
    }

    /// A host whose discovery checks with the list at `list`.
    private static func host(listedIn list: String, allowOtherCompilers: Bool = false) throws -> PluginHost {
        PluginHost(discovery: PluginDiscovery(allowOtherCompilers: allowOtherCompilers,
                                              fileCheck: try DigestAllowlist(contentsOf: list)))
    }

    /// A folder with the clock plugin, its list, and a host with that list that has loaded it.
    private static func listedClockLoaded() throws -> (folder: TemporaryFolder, clock: String, list: String, host: PluginHost) {
        let folder = try TemporaryFolder()
        let clock = try folder.copy("ClockPlugin", as: "libClockPlugin.so")
        let list = try folder.write("SHA256SUMS", Array(try sha256sum(["libClockPlugin.so"], in: folder.path).utf8))
        let host = try host(listedIn: list)
        #expect(host.load([.file(clock)]).loaded.count == 1)
        return (folder, clock, list, host)
    }

    /// A plugin file this process opened before (here by a host without a list) is not shown to the
    /// check of a later host that has one: `CheckedFiles` and `PluginLoader` remember it by its
    /// identity, and the second host registers and starts a plugin its list does not name.
    @Test func aPluginOpenedBeforeIsStillCheckedByAHostWithAList() throws {
        let folder = try TemporaryFolder()
        let clock = try folder.copy("ClockPlugin", as: "libClockPlugin.so")
        let unchecked = PluginHost()
        #expect(unchecked.load([.file(clock)]).loaded.count == 1)
        unchecked.shutdown()

        let list = try folder.write("SHA256SUMS", Array("# this release has no clock\n".utf8))
        let checked = try Self.host(listedIn: list)
        defer { checked.shutdown() }
        let report = checked.load([.file(clock)])
        #expect(report.loaded.isEmpty, "a plugin the list does not name was loaded: \(report.text)")
        #expect(report.problems.map(\.description).contains { $0.contains("refused by the host's file check") },
                "\(report.text)")
    }

    /// The same bug within one host: a plugin the operator retired (its line gone from the list, its
    /// file moved away, withdrawn at the reload) and then moved back (the same inode, size and time)
    /// is added again at the next reload, though the list in force does not name it.
    @Test func aRetiredPluginMovedBackIsCheckedAgainstTheListInForce() throws {
        let folder = try TemporaryFolder()
        let plugins = folder.file("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: false)
        let clock = try folder.copy("ClockPlugin", as: "plugins/libClockPlugin.so")
        let list = try folder.write("SHA256SUMS", Array(try Self.sha256sum(["plugins/libClockPlugin.so"], in: folder.path).utf8))
        let host = try Self.host(listedIn: list)
        defer { host.shutdown() }
        #expect(host.load([.directory(plugins)]).loaded.count == 1)

        try folder.write("SHA256SUMS", Array("# release 2: no clock\n".utf8))
        try FileManager.default.moveItem(atPath: clock, toPath: folder.file("retired.so"))
        #expect(host.reload().entries.map(\.summary).contains { $0.hasPrefix("withdrew clock") || $0.hasPrefix("withdrawn clock") },
                "\(host.startedPlugins)")
        #expect(host.startedPlugins.isEmpty)

        try FileManager.default.moveItem(atPath: folder.file("retired.so"), toPath: clock)
        let back = host.reload()
        #expect(host.startedPlugins.isEmpty, "added though the list does not name it: \(back.entries.map(\.summary))")
        #expect(back.entries.contains { $0.error?.description.contains("refused by the host's file check") == true },
                "\(back.entries.map(\.summary))")
    }

    /// A served plugin rewritten in place with other bytes of the same size, its time set back
    /// (`touch -r`): the same identity, so a reload keeps it and maps nothing new; the rewritten
    /// bytes, which the list does not name, never reach the process.
    @Test func aRewriteThatKeepsTheIdentityMapsNothingNew() throws {
        let (folder, clock, _, host) = try Self.listedClockLoaded()
        defer { host.shutdown() }
        let reference = folder.file("reference")
        try FileManager.default.copyItem(atPath: clock, toPath: reference)
        #expect(try Self.run("/usr/bin/touch", ["-r", clock, reference]) == 0)
        let handle = try #require(FileHandle(forUpdatingAtPath: clock))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        #expect(try Self.run("/usr/bin/touch", ["-r", reference, clock]) == 0)
        let reload = host.reload()
        #expect(reload.entries.allSatisfy { $0.action != .refused && $0.error == nil }, "\(reload.entries.map(\.summary))")
        #expect(host.startedPlugins == ["clock"])
        // Nothing opened: no entry (an opened file is added, upgraded or refused), the clock unchanged.
        // (Not `PluginLoader.imageCount`, which counts every image of the process: tests beside this
        // one map theirs meanwhile.)
        #expect(reload.entries.isEmpty && reload.unchanged == 1, "the rewritten file was mapped: \(reload.entries.map(\.summary))")
    }

    /// `executable ARGUMENTS`' exit status.
    private static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The same file (one inode) at another path, a hard link or a rename, after the listed path was
    /// loaded: `PluginLoader` would take it for the plugin opened, but the list names paths, and the
    /// other path is refused by it, naming its digest.
    @Test func theSameFileAtAnUnlistedPathIsRefused() throws {
        let (folder, clock, list, host) = try Self.listedClockLoaded()
        defer { host.shutdown() }
        try FileManager.default.createDirectory(atPath: folder.file("other"), withIntermediateDirectories: false)
        try FileManager.default.linkItem(atPath: clock, toPath: folder.file("other/libClockPlugin.so"))
        try FileManager.default.moveItem(atPath: clock, toPath: folder.file("libMoved.so"))
        let report = host.load([.file(folder.file("other/libClockPlugin.so")), .file(folder.file("libMoved.so"))])
        let digest = String(try Self.sha256sum(["libMoved.so"], in: folder.path).prefix(64))
        #expect(report.problems.map(\.description) == ["other/libClockPlugin.so", "libMoved.so"].map {
            "\(folder.file($0)): refused by the host's file check: it is not in the digest list \(list); its SHA-256 is \(digest)"
        }, "\(report.text)")
    }

    /// Every kind of source goes through the list: a search path naming a folder and a file, each
    /// refused by it, and what it names loaded.
    @Test func aSearchPathsFilesAndFoldersAreChecked() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("dir"), withIntermediateDirectories: false)
        try folder.copy("ClockPlugin", as: "dir/libClockPlugin.so")
        try folder.copy("GreeterPlugin", as: "libGreeterPlugin.so")
        try folder.copy("NotesPlugin", as: "dir/libNotesPlugin.so")
        let list = try folder.write("SHA256SUMS", Array(try Self.sha256sum(["dir/libNotesPlugin.so"], in: folder.path).utf8))
        let host = try Self.host(listedIn: list)
        defer { host.shutdown() }
        let report = host.load([.searchPath("\(folder.file("dir")):\(folder.file("libGreeterPlugin.so"))")])
        #expect(report.loaded.compactMap(\.metadata?.name) == ["notes"], "\(report.text)")
        #expect(report.problems.map(\.subject).sorted() == [folder.file("dir/libClockPlugin.so"), folder.file("libGreeterPlugin.so")],
                "\(report.text)")
        #expect(report.problems.allSatisfy { $0.description.contains("it is not in the digest list") }, "\(report.text)")
    }

    /// Forms a list takes from other tools: uppercase digits are read; a byte-order mark or a
    /// `sha256sum --tag` (BSD) line is refused naming its line, never read as half a list.
    @Test func listsInOtherFormsAreReadOrRefusedNamingTheLine() throws {
        let folder = try TemporaryFolder()
        let clock = try folder.copy("ClockPlugin", as: "libClockPlugin.so")
        let written = try Self.sha256sum(["libClockPlugin.so"], in: folder.path)
        let upper = try folder.write("UPPER", Array((written.prefix(64).uppercased() + written.dropFirst(64)).utf8))
        let host = try Self.host(listedIn: upper)
        defer { host.shutdown() }
        #expect(host.load([.file(clock)]).loaded.count == 1)
        let tagged = try Self.sha256sum(["--tag", "libClockPlugin.so"], in: folder.path)
        for (name, text) in [("BOM", "\u{FEFF}" + written), ("TAGGED", "\n" + tagged)] {
            let list = try folder.write(name, Array(text.utf8))
            let error = #expect(throws: DigestAllowlist.Unusable.self) { try DigestAllowlist(contentsOf: list) }
            #expect(error?.reason.contains("(line \(name == "BOM" ? 1 : 2))") == true, "\(String(describing: error))")
        }
    }

    /// A library found where it lies (an absolute run path) would be hashed where it lies and then
    /// mapped by the loader from its path: bytes written into it between the two (here by the check,
    /// as a writer racing the load would) were mapped, though the list names the bytes read. Under a
    /// check, such a library not owned by root is refused unread. Its constructor says whether a
    /// build ran.
    @Test func aLibraryMappedWhereItLiesIsTheFileThatWasHashed() throws {
        let work = try TemporaryFolder()
        let lib = work.file("lib")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: false)
        // Two builds of one source that differ in one character of a path: the same size.
        try ("#include <fcntl.h>\n#include <unistd.h>\n"
             + "__attribute__((constructor)) static void ran(void) { close(open(\"\(work.path)/ran-\" BUILD, O_CREAT | O_WRONLY, 0644)); }\n"
             + "int marked(void) { return 1; }\n").write(toFile: work.file("mark.c"), atomically: true, encoding: .utf8)
        try SearchModelTests.cc(["-shared", "-fPIC", "-DBUILD=\"A\"", "-o", "lib/libmark.so", "mark.c"], in: work.path)
        try SearchModelTests.cc(["-shared", "-fPIC", "-DBUILD=\"B\"", "-o", "libmark-b.so", "mark.c"], in: work.path)
        let other = Array(try Data(contentsOf: URL(fileURLWithPath: work.file("libmark-b.so"))))
        let library = work.file("lib/libmark.so")
        try #require(other.count == (try Data(contentsOf: URL(fileURLWithPath: library))).count)
        try "int marked(void);\nvoid *swift_plugin_entry(void) { return (void *)(long)(marked() - 1); }\n"
            .write(toFile: work.file("plugin.c"), atomically: true, encoding: .utf8)
        try SearchModelTests.cc(["-shared", "-fPIC", "-o", "libMarkPlugin.so", "plugin.c", "-Llib", "-lmark",
                                 "-Wl,--enable-new-dtags,-rpath,\(lib)"], in: work.path)
        let list = try work.write("SHA256SUMS", Array(try Self.sha256sum(["libMarkPlugin.so", "lib/libmark.so"], in: work.path).utf8))

        let check = RewritingCheck(list: try DigestAllowlist(contentsOf: list), target: library, bytes: other)
        let host = PluginHost(discovery: PluginDiscovery(allowOtherCompilers: true, fileCheck: check))
        defer { host.shutdown() }
        let report = host.load([.file(work.file("libMarkPlugin.so"))])
        // Refused before it is read: a file mapped where it lies, which its owner (not root) could
        // rewrite after the check, is not mapped under a check at all; neither build runs.
        #expect(!check.rewrote, "the library was read and rewritten: \(report.text)")
        #expect(!FileManager.default.fileExists(atPath: work.file("ran-B")) && !FileManager.default.fileExists(atPath: work.file("ran-A")),
                "a build of the library ran: \(report.text)")
        let problem = try #require(report.problems.first, "\(report.text)")
        #expect(problem.description.contains("ship it beside the plugin, where the host maps a copy of what it checked"),
                "\(problem)")
    }

    /// A list written on Windows (CRLF line endings), which `sha256sum -c` reads: every line is one
    /// entry, its name without the carriage return. Swift takes "\r\n" for one character, so the
    /// list split on "\n" was one line, and every file it names was refused as not in it.
    @Test func aListWithCRLFLineEndingsNamesItsFiles() throws {
        let folder = try TemporaryFolder()
        try folder.copy("ClockPlugin", as: "libClockPlugin.so")
        try folder.copy("GreeterPlugin", as: "libGreeterPlugin.so")
        let written = try Self.sha256sum(["libClockPlugin.so", "libGreeterPlugin.so"], in: folder.path)
        let list = try folder.write("SHA256SUMS", Array(written.replacing("\n", with: "\r\n").utf8))
        let host = try Self.host(listedIn: list)
        defer { host.shutdown() }
        let report = host.load([.directory(folder.path)])
        #expect(report.problems.isEmpty, "\(report.text)")
        #expect(report.loaded.count == 2, "\(report.text)")
    }

    /// `sha256sum` (coreutils 9) writes a carriage return in a name as `\r`, on a line that starts
    /// with `\`; read as a plain `r`, the entry named another file and the one listed was refused.
    @Test func aNameWithACarriageReturnIsReadAsSha256sumEscapesIt() throws {
        let folder = try TemporaryFolder()
        try folder.copy("ClockPlugin", as: "odd\rname.so")
        let written = try Self.sha256sum(["odd\rname.so"], in: folder.path)
        try #require(written.hasPrefix("\\") && written.contains("odd\\rname.so"), "\(written)")
        let list = try folder.write("SHA256SUMS", Array(written.utf8))
        let host = try Self.host(listedIn: list)
        defer { host.shutdown() }
        let report = host.load([.file(folder.file("odd\rname.so"))])
        #expect(report.problems.isEmpty, "\(report.text)")
        #expect(report.loaded.count == 1, "\(report.text)")
    }

    /// A list in a folder reached through a symlink, naming `../libs/...` as `sha256sum` run there
    /// read it: the kernel resolves `..` in the symlink's target, not in the path as written. The
    /// list resolved it as written, so the file hashed was refused as not listed, and the entry
    /// stood for a file beside the symlink that `sha256sum` never read.
    @Test func aDotDotEntryNamesTheFileSha256sumRead() throws {
        let folder = try TemporaryFolder()
        for name in ["release", "release/plugins", "release/libs"] {
            try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: false)
        }
        let clock = try folder.copy("ClockPlugin", as: "release/libs/libClockPlugin.so")
        try FileManager.default.createSymbolicLink(atPath: folder.file("plugins"), withDestinationPath: folder.file("release/plugins"))
        let written = try Self.sha256sum(["../libs/libClockPlugin.so"], in: folder.file("plugins"))
        let list = try folder.write("plugins/SHA256SUMS", Array(written.utf8))
        let host = try Self.host(listedIn: list)
        defer { host.shutdown() }
        let report = host.load([.file(clock)])
        #expect(report.problems.isEmpty, "\(report.text)")
        #expect(report.loaded.count == 1, "\(report.text)")
    }

    /// A file's name is its bytes. Swift's `String` compares (and hashes) by canonical equivalence,
    /// so an entry for `café.so` (é one code point) stood for `café.so` (e and a combining accent),
    /// another file on Linux, which the list does not name; and `sha256sum`'s `\n` before a
    /// combining mark was one character with it, not an escape, so that entry named no file.
    @Test func aListNamesFilesByTheirBytes() throws {
        let folder = try TemporaryFolder()
        let composed = "caf\u{E9}.so", decomposed = "cafe\u{301}.so", newline = "x\n\u{301}.so"
        for name in [composed, decomposed, newline] { try folder.copy("ClockPlugin", as: name) }
        let list = try folder.write("SHA256SUMS", Array(try Self.sha256sum([composed, newline], in: folder.path).utf8))
        let host = try Self.host(listedIn: list)
        defer { host.shutdown() }
        let listed = host.load([.file(folder.file(newline))])
        #expect(listed.problems.isEmpty, "\(listed.text)")
        let other = host.load([.file(folder.file(decomposed))])
        #expect(other.problems.map(\.description).contains { $0.contains("it is not in the digest list") }, "\(other.text)")
    }

    /// A list far larger than any release's (a file of 64 MiB, sparse) is refused for its size before
    /// it is read: it was read whole into memory, twice over as text, at start and at each reload of
    /// the serving host (a list of 1 GiB took 2 GiB and most of a minute), then said to have a
    /// malformed first line.
    @Test func aHugeListIsRefusedForItsSizeUnread() throws {
        let folder = try TemporaryFolder()
        let list = try folder.write("SHA256SUMS", [], mode: 0o600)
        #expect(truncate(list, 64 << 20) == 0)
        let error = #expect(throws: DigestAllowlist.Unusable.self) { try DigestAllowlist(contentsOf: list) }
        #expect(error?.reason.contains("larger than") == true, "\(String(describing: error))")
    }

    /// HostKit's SHA-256 against `sha256sum` on the sizes around the padding's edges (a length that
    /// fits the last block or needs one more), and a few megabytes; whole and in pieces.
    @Test(arguments: [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 3 * 1_048_576 + 17])
    func theDigestIsSha256sumsAtEverySize(size: Int) throws {
        let folder = try TemporaryFolder()
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
        try folder.write("file", bytes)
        let expected = String(try Self.sha256sum(["file"], in: folder.path).prefix(64))
        #expect(SHA256.hex(SHA256.digest(bytes)) == expected)
        var pieces = SHA256()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + [1, 63, 64, 65, 7][start % 5])
            pieces.update(Array(bytes[start..<end]))
            start = end
        }
        #expect(SHA256.hex(pieces.finalize()) == expected)
    }
}

/// The digest list's check, after which the file at `target` is written over in place (the same
/// inode and size) with `bytes`: a writer that wins the race between the hash and the mapping.
private final class RewritingCheck: PluginFileCheck, @unchecked Sendable {
    // @unchecked: `lock` guards `done`; the check runs on the loading thread.
    private let lock = NSLock()
    private var done = false
    private let list: DigestAllowlist
    private let target: String
    private let bytes: [UInt8]

    init(list: DigestAllowlist, target: String, bytes: [UInt8]) {
        self.list = list
        self.target = target
        self.bytes = bytes
    }

    var rewrote: Bool { lock.withLock { done } }

    func loadBegins() throws { try list.loadBegins() }

    func check(_ file: PluginFile) throws {
        try list.check(file)
        guard file.path == target, let handle = FileHandle(forWritingAtPath: target) else { return }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(bytes))
        lock.withLock { done = true }
    }
}
