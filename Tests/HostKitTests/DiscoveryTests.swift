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
}
