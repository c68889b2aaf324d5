import Foundation
@testable import HostKit
import TestSupport
import Testing

/// The names a path is opened under, one per open: distinct, the same file, and short.
@Suite struct SpellingTests {
    @Test func everyOpenOfAPathGetsAShortNameOfItsOwnForTheSameFile() throws {
        let folder = try TemporaryFolder()
        let path = try folder.copy("FixtureVersionOne", as: "libversioned.so")
        let spellings = (0..<5000).map { PluginLoader.spelling(of: path, image: $0) }
        #expect(Set(spellings).count == spellings.count)
        #expect(spellings[0] == path)
        #expect(spellings.allSatisfy { $0.utf8.count <= path.utf8.count + 2 * 13 })
        for spelling in spellings.prefix(9) + [spellings[4999]] {
            #expect(URL(fileURLWithPath: spelling).resolvingSymlinksInPath().path == path, "\(spelling)")
            #expect(FileManager.default.contentsEqual(atPath: spelling, andPath: path))
        }
    }
}
