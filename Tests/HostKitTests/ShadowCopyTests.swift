import Foundation
@testable import DynamicLoading
@testable import HostKit
@_spi(HostKit) import PluginAPI
import TestSupport
import Testing

/// Shadow copies: what is checked is what is mapped, and nothing done to a plugin's file afterwards
/// reaches the image (`ShadowFolder`).
@Suite struct ShadowCopyTests {
    let versioned = "libversioned.so"

    /// The files this process has mapped, as `/proc/self/maps` names them.
    static func mappedFiles() throws -> Set<String> {
        // Read to its end: a file of /proc says its size is 0.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        #expect(!maps.isEmpty)
        return Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true).dropFirst(5).first
                .map { String($0.trimmingCharacters(in: .whitespaces).replacing(" (deleted)", with: "")) }
        })
    }

    @Test func aNewBuildCopiedOverAServedFileIsUpgradedAndTheOldVersionStopsCleanly() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        let host = plugins.host
        #expect(try host.locator.tryService(key: versionedKey) == "1")
        _ = try host.locator.tryService(key: ServiceLocatorEasyKey<any ClosableService>(name: "fixture.versioned.closable"))
        // As `cp` does: the same file opened, truncated and written with the new build's bytes. Before
        // shadow copies, the old image's pages came from this file: stopping it crashed the host.
        let path = plugins.folder.file(versioned)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path("FixtureVersionTwo"))))
        try handle.close()
        let report = host.reload()
        #expect(report.entries.map(\.summary) == ["upgraded fixture-versioned 1.0.0 -> 2.0.0 (\(path))"], "\(report.text)")
        #expect(try host.locator.tryService(key: versionedKey) == "2")
        #expect(script.events == ["start versioned 1", "start versioned 2", "shutdown versioned 1", "close versioned 1"])
        #expect(host.shutdown().entries.allSatisfy { $0.outcome.isFinished })
    }

    @Test func theImageMappedIsTheCheckedCopyAndTheCopiesGoWithTheLoad() throws {
        let folder = try TemporaryFolder()
        let file = try folder.install("FixtureVersionThree", as: "libthree.so")
        let parent = try TemporaryFolder()
        let host = PluginHost(discovery: PluginDiscovery(shadowFolder: parent.path))
        let report = host.load([.file(file)], start: false)
        #expect(!report.hasProblems, "\(report.problems)")
        let mapped = try Self.mappedFiles()
        // The original is never mapped; its copy, made in a folder of `parent`, is.
        #expect(!mapped.contains(file))
        let copies = mapped.filter { $0.hasPrefix(parent.path + "/") }
        #expect(copies.count == 1 && copies.first?.hasSuffix(file) == true, "\(copies) \(file)")
        // Once the load is done, its folder is gone (the mapping stays).
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).isEmpty)
        // A report names the original, never the copy.
        #expect(report.entries.map(\.path) == [file])
    }

    @Test func aShadowFolderThatCannotBeMadeLoadsNothingAndSaysWhere() throws {
        let folder = try TemporaryFolder()
        let file = try folder.install("FixtureVersionOne", as: versioned)
        let missing = folder.file("no-such-folder")
        let host = PluginHost(discovery: PluginDiscovery(shadowFolder: missing))
        let report = host.load([.file(file)], start: false)
        guard case let .shadowFolderUnusable(path, reason)? = report.problems.first else {
            Issue.record("not refused: \(report.entries)")
            return
        }
        #expect(path == missing)
        #expect(reason.contains("No such file"), "\(reason)")
        #expect(host.locator.slots.isEmpty)
    }

    /// From the adversarial review: whoever may write the folder the copies' folder is made in may
    /// rename it away and put another in its place (a planted copy ran as root). Refused as a plugin's
    /// folder would be; a sticky folder such as /tmp is fine.
    @Test func aShadowFolderOthersCanWriteIsRefused() throws {
        let folder = try TemporaryFolder()
        let file = try folder.install("FixtureVersionOne", as: versioned)
        let open = folder.file("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        let report = PluginHost(discovery: PluginDiscovery(shadowFolder: open)).load([.file(file)], start: false)
        guard case let .shadowFolderUnusable(path, reason)? = report.problems.first else {
            Issue.record("not refused: \(report.entries)")
            return
        }
        #expect(path == open)
        #expect(reason.contains("writable"), "\(reason)")
        #expect(!reason.contains("allowUntrusted"), "\(reason)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: open).isEmpty)
    }

    /// From the adversarial review: a file that is no shared library is refused from its headers,
    /// where it lies, before a byte of it is copied (a 3 GB one filled the folder of copies).
    @Test func aFileThatIsNoLibraryIsRefusedBeforeItIsCopied() throws {
        let folder = try TemporaryFolder()
        let file = try folder.write("libhuge.so", [])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.truncate(atOffset: 64 << 20)
        try handle.close()
        let shadow = try #require(try? ShadowFolder.make(in: folder.path).get())
        defer { shadow.remove() }
        let outcome = PluginDiscovery().candidate(file, into: shadow, fileCheck: nil)
        guard case let .failure(.notASharedLibrary(path, reason)) = outcome else {
            Issue.record("not refused as no library: \(outcome)")
            return
        }
        #expect(path == file && reason == "not an ELF file", "\(reason)")
        // Nothing was copied: the folder, made at the first copy, was not even made.
        #expect(!FileManager.default.fileExists(atPath: shadow.root))
    }

    /// Copies are made readable whatever the umask (with umask 0477 a plugin was refused as unreadable,
    /// naming the plugin rather than its copy).
    @Test func aCopyIsReadableWhateverTheUmask() throws {
        let folder = try TemporaryFolder()
        let file = try folder.install("FixtureVersionOne", as: "libumask.so")
        let shadow = try #require(try? ShadowFolder.make(in: folder.path).get())
        defer { shadow.remove() }
        let previous = umask(0o477)
        defer { umask(previous) }
        let copy = try shadow.copy(file, as: file).image
        let status = try #require(FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int)
        #expect(status == 0o500)
    }

    /// A host killed while it loaded leaves its folder of copies; the next folder made beside it
    /// removes it (its process is gone), and leaves a live process's folder alone.
    @Test func aFolderLeftByAProcessThatIsGoneIsRemoved() throws {
        let parent = try TemporaryFolder()
        // A process number no process has (kill says ESRCH), and this process's own.
        let gone = try #require((100_000..<4_000_000).lazy.map { Int32($0) }.first { kill($0, 0) != 0 && errno == ESRCH })
        let left = parent.file("\(ShadowFolder.namePrefix)\(gone)-AbCdEf")
        let live = parent.file("\(ShadowFolder.namePrefix)\(getpid())-GhIjKl")
        for folder in [left, live] { try FileManager.default.createDirectory(atPath: folder + "/x", withIntermediateDirectories: true) }
        let shadow = try #require(try? ShadowFolder.make(in: parent.path).get())
        defer { shadow.remove() }
        #expect(!FileManager.default.fileExists(atPath: left))
        #expect(FileManager.default.fileExists(atPath: live))
    }

    /// A reload that finds nothing changed makes no folder of copies (on ext4, making and removing
    /// it was most of such a reload's time): the parent is not written at all.
    @Test func aReloadThatFindsNothingChangedMakesNoFolder() throws {
        let folder = try TemporaryFolder()
        let file = try folder.install("FixtureVersionThree", as: "libthree.so")
        let parent = try TemporaryFolder()
        let host = PluginHost(discovery: PluginDiscovery(shadowFolder: parent.path))
        #expect(!host.load([.file(file)], start: false).hasProblems)
        // An old time, so that any folder made and removed since shows, however soon.
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, parent.path, &times, 0) == 0)
        let report = host.reload()
        #expect(report.entries.isEmpty && !report.hasProblems, "\(report.text)")
        let modified = try #require(FileStatus(parent.path)?.identity.modifiedSeconds)
        #expect(modified == 1_000_000, "the parent was written: a folder was made in it")
    }

    /// The folder's name is chosen before it is made: a folder put at that name meanwhile (by
    /// anyone who could foretell it) is never used nor removed, and nothing is copied.
    @Test func aFolderPutAtTheChosenNameIsNeverUsed() throws {
        let folder = try TemporaryFolder()
        let file = try folder.install("FixtureVersionThree", as: "libthree.so")
        let parent = try TemporaryFolder()
        let shadow = try #require(try? ShadowFolder.make(in: parent.path).get())
        let other = try #require(try? ShadowFolder.make(in: parent.path).get())
        defer { other.remove() }
        #expect(shadow.root != other.root)
        try FileManager.default.createDirectory(atPath: shadow.root + "/planted", withIntermediateDirectories: true)
        let refusal = #expect(throws: ShadowFolder.Refusal.self) { try shadow.copy(file, as: file) }
        #expect(refusal?.reason.contains("a folder this host did not make is at the path of its folder of copies") == true,
                "\(refusal?.reason ?? "")")
        shadow.remove()
        #expect(try FileManager.default.contentsOfDirectory(atPath: shadow.root) == ["planted"])
    }
}
