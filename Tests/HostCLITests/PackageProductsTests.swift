import Foundation
import TestSupport
import Testing

/// What a package that depends on this one sees: the host's products, never a test fixture; and the
/// fixtures are built apart from the sample plugins, so that `host --plugins .build/debug` finds no
/// crashing or hanging plugin.
@Suite struct PackageProductsTests {
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func theRootPackageOffersNoFixtureAndTheFixturesAreBuiltApart() async throws {
        let dump = try await rootManifest(scratchIn: try TemporaryFolder())
        let manifest = try #require(dump.manifest, "\(dump.output)")
        let products = (manifest["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(Set(products).isSuperset(of: ["HostKit", "host", "PluginAPI", "SampleContracts", "ClockPlugin"]), "\(products)")
        #expect(products.filter { $0.hasPrefix("Fixture") }.isEmpty, "fixtures offered to dependents: \(products)")

        let fixtures = URL(fileURLWithPath: BuiltPlugins.fixtures).standardizedFileURL.path
        #expect(fixtures != URL(fileURLWithPath: BuiltPlugins.directory).standardizedFileURL.path)
        #expect(FileManager.default.fileExists(atPath: BuiltPlugins.path("FixtureCrash")), "built by BuildFixtures")
        #expect(BuiltPlugins.path("FixtureCrash").hasPrefix(BuiltPlugins.fixtures + "/"))
    }
}
