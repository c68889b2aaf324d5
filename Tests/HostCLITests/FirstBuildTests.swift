import Foundation
import TestSupport
import Testing

/// A newcomer's first `swift build` builds what they asked for: the products, not the test fixtures.
@Suite struct FirstBuildTests {
    /// The fixtures (Tests/PluginFixtures, about 80 of the 92 seconds of a first `swift build` when a plain
    /// target applied BuildFixtures) are built by the build tool plugin of the targets that apply it:
    /// each of them a test target, built only by `swift build --build-tests` and `swift test`.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func onlyTestTargetsBuildTheFixtures() async throws {
        let dump = try await rootManifest(scratchIn: try TemporaryFolder())
        let package = try #require(dump.manifest, "\(dump.output)")
        let targets = package["targets"] as? [[String: Any]] ?? []
        // `"pluginUsages": [{"plugin": ["BuildFixtures", null]}]`: the plugin's name, and its package's if another's.
        let applying = targets.filter { target in
            (target["pluginUsages"] as? [[String: Any]] ?? []).contains { ($0["plugin"] as? [Any])?.first as? String == "BuildFixtures" }
        }
        #expect(applying.map { $0["name"] as? String } == ["TestSupport"], "\(applying)")
        for target in applying {
            #expect(target["type"] as? String == "test", "\(target["name"] ?? "?") is built by a plain swift build: \(target)")
        }
    }
}
