import Foundation
@testable import HostKit
import TestSupport
import Testing

@Suite struct DiscoveryTests {
    @Test func aDirectoryYieldsItsSharedLibrariesSortedAndNotItsSubfolders() throws {
        let folder = try TemporaryFolder()
        try folder.copy("NotesPlugin", as: "b.so")
        try folder.copy("ClockPlugin", as: "a.so")
        try folder.write("readme.txt", Array("not a plugin".utf8))
        try FileManager.default.createDirectory(atPath: "\(folder.path)/sub", withIntermediateDirectories: false)
        try folder.copy("ClockPlugin", as: "sub/c.so")
        let (candidates, problems) = PluginDiscovery().discover([.directory(folder.path)])
        #expect(problems.isEmpty)
        #expect(candidates.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["a.so", "b.so"])
    }

    @Test func aSearchPathMixesFilesAndFolders() throws {
        let folder = try TemporaryFolder()
        try folder.copy("ClockPlugin", as: "a.so")
        let (candidates, problems) = PluginDiscovery()
            .discover([.searchPath("\(folder.path)::\(BuiltPlugins.path("NotesPlugin"))")])
        #expect(problems.isEmpty)
        #expect(candidates.count == 2)
        #expect(candidates.allSatisfy { $0.realPath.hasPrefix("/") })
    }

    @Test func theSamePluginGivenTwiceOrThroughASymlinkIsOneCandidate() throws {
        let folder = try TemporaryFolder()
        let link = "\(folder.path)/link.so"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: BuiltPlugins.path("ClockPlugin"))
        let (candidates, _) = PluginDiscovery().discover([
            .file(BuiltPlugins.path("ClockPlugin")), .file(link), .file(BuiltPlugins.path("ClockPlugin")),
        ])
        #expect(candidates.count == 1)
        #expect(candidates.first?.realPath == URL(fileURLWithPath: BuiltPlugins.path("ClockPlugin")).resolvingSymlinksInPath().path)
    }

    @Test func aRelativePathIsMadeAbsolute() throws {
        let relative = "./" + String(BuiltPlugins.path("ClockPlugin").dropFirst(FileManager.default.currentDirectoryPath.count + 1))
        try #require(BuiltPlugins.path("ClockPlugin").hasPrefix(FileManager.default.currentDirectoryPath + "/"))
        let (candidates, problems) = PluginDiscovery().discover([.file(relative)])
        #expect(problems.isEmpty)
        #expect(candidates.first?.path.hasPrefix("/") == true)
    }

    @Test func aSymlinkLoopIsNotARegularFile() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: "\(folder.path)/a.so", withDestinationPath: "\(folder.path)/b.so")
        try FileManager.default.createSymbolicLink(atPath: "\(folder.path)/b.so", withDestinationPath: "\(folder.path)/a.so")
        let (_, problems) = PluginDiscovery().discover([.file("\(folder.path)/a.so")])
        #expect(problems == [.notARegularFile(path: "\(folder.path)/a.so", kind: "symlink loop")])
    }

    @Test func filesOthersCanWriteAreRefusedUnlessAllowed() throws {
        let folder = try TemporaryFolder()
        let file = try folder.copy("ClockPlugin", as: "open.so", mode: 0o666)
        let (refused, problems) = PluginDiscovery().discover([.file(file)])
        #expect(refused.isEmpty)
        guard case let .untrusted(_, reason)? = problems.first else {
            Issue.record("expected untrusted, got \(problems)")
            return
        }
        #expect(reason.contains("writable by others"))
        let (allowed, none) = PluginDiscovery(allowUntrusted: true).discover([.file(file)])
        #expect(allowed.count == 1 && none.isEmpty)
    }

    @Test func aFolderOthersCanWriteIsRefused() throws {
        let folder = try TemporaryFolder()
        try folder.copy("ClockPlugin", as: "a.so")
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        let (candidates, problems) = PluginDiscovery().discover([.directory(folder.path)])
        #expect(candidates.isEmpty)
        #expect(problems.count == 1)
        if case .untrusted? = problems.first {} else { Issue.record("expected untrusted, got \(problems)") }
    }

    /// A folder anyone may write lets anyone rename what is in it and put something else there, however
    /// deep below it the plugin lies: every folder up to `/` is checked, as ssh checks a key's.
    @Test func aWorldWritableAncestorIsRefusedNamingIt() throws {
        let folder = try TemporaryFolder()
        let open = folder.file("open")
        let plugin = try placePlugin(at: "open/inner/a.so", in: folder)
        try chmod(open, 0o777)
        for source in [PluginSource.file(plugin), .directory(folder.file("open/inner"))] {
            guard let reason = untrustedReason(source) else { continue }
            #expect(reason.contains("folder \(open) is writable by others (mode 777, owner \(geteuid()))"), "\(reason)")
            #expect(reason.hasSuffix("; PluginDiscovery.allowUntrusted loads it anyway"), "\(reason)")
            #expect(PluginDiscovery(allowUntrusted: true).discover([source]).candidates.count == 1)
        }
    }

    /// A symlink in a folder anyone may write can be replaced by anyone, so the file it leads to
    /// today says nothing: refused, also as one link of a chain.
    @Test func aSymlinkInAWorldWritableFolderIsRefused() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("open"), withIntermediateDirectories: false)
        try chmod(folder.file("open"), 0o777)
        try FileManager.default.createSymbolicLink(atPath: folder.file("open/link.so"),
                                                   withDestinationPath: BuiltPlugins.path("ClockPlugin"))
        try FileManager.default.createSymbolicLink(atPath: folder.file("chain.so"), withDestinationPath: "open/link.so")
        for path in [folder.file("open/link.so"), folder.file("chain.so")] {
            let (candidates, problems) = PluginDiscovery().discover([.file(path)])
            #expect(candidates.isEmpty, "\(path)")
            guard case let .untrusted(refused, reason)? = problems.first else {
                Issue.record("\(path): expected untrusted, got \(problems)")
                continue
            }
            #expect(refused == path)
            #expect(reason.contains("folder \(folder.file("open")) is writable by others"), "\(reason)")
        }
    }

    /// A `/` followed by a combining character is one Swift Character: a walk that split the path on
    /// Characters left the folder before it unchecked (found by an adversarial review).
    @Test func aNameStartingWithACombiningCharacterDoesNotHideItsFolder() throws {
        let folder = try TemporaryFolder()
        let open = folder.file("open")
        let file = try placePlugin(at: "open/\u{301}a.so", in: folder)
        let deeper = try placePlugin(at: "open/\u{301}sub/a.so", in: folder)
        try chmod(open, 0o777)
        for path in [file, deeper] {
            guard let reason = untrustedReason(.file(path)) else { continue }
            #expect(reason.contains("folder \(open) is writable by others"), "\(reason)")
        }
    }

    /// A symlink whose target is not UTF-8 cannot be walked as the kernel walks it (decoding would
    /// check another name): refused, even where a folder of the decoded name is there to be checked.
    @Test func aSymlinkToANameThatIsNotUTF8IsRefused() throws {
        let folder = try TemporaryFolder()
        _ = try placePlugin(at: "evil/a.so", in: folder)
        try chmod(folder.file("evil"), 0o777)
        _ = try placePlugin(at: "trusted/\u{FFFD}/a.so", in: folder)
        let oddName = (Array(folder.file("trusted/").utf8) + [0xFF, 0]).map { CChar(bitPattern: $0) }
        try #require(symlink(folder.file("evil"), oddName) == 0)
        defer { unlink(oddName) }
        let target = ([0xFF] + Array("/a.so".utf8) + [0]).map { CChar(bitPattern: $0) }
        let link = folder.file("trusted/link.so")
        try #require(symlink(target, link) == 0)
        guard let reason = untrustedReason(.file(link)) else { return }
        #expect(reason.contains("points at a name that is not UTF-8"), "\(reason)")
    }

    /// A sticky folder anyone may write (like /tmp) lets others add entries but not rename or remove
    /// ours: a folder, a file and a symlink of ours in it are as safe as anywhere.
    @Test func ourEntriesInAStickyWorldWritableFolderLoad() throws {
        let folder = try TemporaryFolder()
        let plugin = try placePlugin(at: "sticky/mine/a.so", in: folder)
        try chmod(folder.file("sticky"), 0o1777)
        try FileManager.default.createSymbolicLink(atPath: folder.file("sticky/link.so"),
                                                   withDestinationPath: BuiltPlugins.path("NotesPlugin"))
        let (candidates, problems) = PluginDiscovery().discover([.file(plugin), .file(folder.file("sticky/link.so"))])
        #expect(problems.isEmpty, "\(problems)")
        #expect(candidates.count == 2)
    }

    /// In a sticky folder, whoever owns an entry may still replace it: a symlink, or a folder, another
    /// user owns there is refused, naming the owner. Needs root, to make entries another user owns.
    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func anEntryAnotherUserOwnsInAStickyFolderIsRefused() throws {
        let folder = try TemporaryFolder()
        let theirs = try placePlugin(at: "sticky/theirs/a.so", in: folder)
        try chmod(folder.file("sticky"), 0o1777)
        let link = folder.file("sticky/link.so")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: BuiltPlugins.path("ClockPlugin"))
        let stranger: uid_t = 54_321
        #expect(lchown(link, stranger, stranger) == 0 && lchown(folder.file("sticky/theirs"), stranger, stranger) == 0)
        for (path, kind, owner) in [(link, "symlink", link), (theirs, "folder", folder.file("sticky/theirs"))] {
            guard let reason = untrustedReason(.file(path)) else { continue }
            #expect(reason.contains("\(kind) \(owner) is owned by user \(stranger)"), "\(reason)")
        }
    }

    /// A name that is not UTF-8 has no String to reach it by: found in a folder, or as the real path
    /// behind a symlink, it is reported as such, not as "no such file".
    @Test func aFileNameThatIsNotUTF8IsSaidToBeOne() throws {
        let folder = try TemporaryFolder()
        let valid = try folder.copy("ClockPlugin", as: "valid.so")
        let name: [CChar] = (Array("\(folder.path)/plug".utf8) + [0xFF] + Array("in.so".utf8) + [0]).map { CChar(bitPattern: $0) }
        try #require(rename(valid, name) == 0)
        // FileManager cannot remove a name it cannot spell.
        defer { unlink(name) }
        let link = folder.file("link.so")
        try #require(symlink(name, link) == 0)

        let (found, problems) = PluginDiscovery().discover([.directory(folder.path)])
        #expect(found.isEmpty)
        #expect(problems == [
            .unusablePath(path: link + " -> \(folder.path)/plug\\xFFin.so", reason: "its real path is not valid UTF-8; rename it to load it"),
            .unusablePath(path: "\(folder.path)/plug\\xFFin.so", reason: "the file name is not valid UTF-8; rename it to load it"),
        ])
    }

    /// A name longer than NAME_MAX, and a path longer than PATH_MAX, are said to be, not "no such file".
    @Test func aPathLongerThanTheSystemAllowsIsSaidToBe() throws {
        let folder = try TemporaryFolder()
        let long = folder.file(String(repeating: "n", count: 300) + ".so")
        #expect(PluginDiscovery().discover([.file(long)]).problems == [.unusablePath(
            path: long, reason: "the name '\(String(repeating: "n", count: 40))…' is 303 bytes long, longer than the system allows (255 bytes)")])

        // Folders within folders until the path is longer than PATH_MAX: made one at a time, each
        // name relative to its parent, as a path that long can be given to no call.
        let name = String(repeating: "d", count: 250)
        var parent = open(folder.path, O_RDONLY | O_DIRECTORY)
        for _ in 0..<17 {
            try #require(mkdirat(parent, name, 0o755) == 0)
            let child = openat(parent, name, O_RDONLY | O_DIRECTORY)
            close(parent)
            parent = child
        }
        close(openat(parent, "a.so", O_CREAT | O_WRONLY, 0o644))
        close(parent)
        // FileManager cannot remove what lies deeper than PATH_MAX; rm can.
        defer { try? Process.run(URL(fileURLWithPath: "/bin/rm"), arguments: ["-rf", folder.file(name)]).waitUntilExit() }
        let deep = folder.path + String(repeating: "/" + name, count: 17) + "/a.so"
        #expect(PluginDiscovery().discover([.file(deep)]).problems == [.unusablePath(
            path: deep, reason: "the path, or the real path its symlinks lead to, is longer than the system allows (4096 bytes)")])
    }

    /// The reason `source` is refused as untrusted, with nothing found; nil (and an issue recorded)
    /// if it is not.
    private func untrustedReason(_ source: PluginSource) -> String? {
        let (candidates, problems) = PluginDiscovery().discover([source])
        #expect(candidates.isEmpty, "\(source)")
        guard case let .untrusted(_, reason)? = problems.first else {
            Issue.record("\(source): expected untrusted, got \(problems)")
            return nil
        }
        return reason
    }

    /// A copy of the clock plugin at `relative` in `folder` (its folders made, mode 755); its path.
    private func placePlugin(at relative: String, in folder: TemporaryFolder) throws -> String {
        let directory = URL(fileURLWithPath: folder.file(relative)).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        return try folder.copy("ClockPlugin", as: relative)
    }

    private func chmod(_ path: String, _ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }
}

extension PluginDiscovery {
    /// Discovery as a load runs it (each file copied into the load's shadow folder), the copies
    /// removed after.
    fileprivate func discover(_ sources: [PluginSource]) -> (candidates: [PluginCandidate], problems: [PluginLoadError]) {
        let pipeline = LoadPipeline(discovery: self)
        defer { pipeline.finish() }
        return pipeline.discover(sources)
    }
}
