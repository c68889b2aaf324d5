import Foundation
import HostKit
import TestSupport
import Testing

/// A versioned library (a contract library) among the plugins that no plugin links: what its own
/// symbols say it is, left alone, no problem of the load; an unknown library is still refused.
@Suite struct UnlinkedLibraryTests {
    @Test func aContractLibraryNoPluginLinksIsListedNotRefused() throws {
        let folder = try TemporaryFolder()
        let library = folder.file("libFixtureRemoteContracts.so")
        try FileManager.default.copyItem(atPath: BuiltPlugins.path("FixtureRemoteContracts"), toPath: library)
        let report = PluginHost().load([.directory(folder.path)])
        #expect(!report.hasProblems, "\(report.text)")
        let entry = try #require(report.entries.first)
        #expect(report.entries.count == 1 && entry.isLibrary && !entry.isLoaded)
        #expect(entry.unlinkedLibrary == "FixtureRemoteContracts")
        #expect(entry.summary.hasSuffix("libFixtureRemoteContracts.so), no plugin here links it"), "\(entry.summary)")
        let json = try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: [[String: Any]]]
        let plugin = try #require(json?["plugins"]?.first)
        #expect(plugin["unlinkedLibrary"] as? String == "FixtureRemoteContracts" && plugin["status"] as? String == "library",
                "\(report.json)")
    }

    /// The name is what a plugin would link it by: under another one, its version function is not the
    /// one the name calls for, and the file is refused as no plugin.
    @Test func theSameBytesUnderAnotherNameAreNotAPlugin() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: BuiltPlugins.path("FixtureRemoteContracts"), toPath: folder.file("libOther.so"))
        let report = PluginHost().load([.directory(folder.path)])
        guard case .missingEntrySymbol? = report.entries.first?.error else {
            Issue.record("expected not a plugin: \(report.text)")
            return
        }
        #expect(report.entries.first?.unlinkedLibrary == nil)
    }
}
