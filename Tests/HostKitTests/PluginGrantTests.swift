import Foundation
import HostKit
import PluginAPI
import SampleContracts
import TestSupport
import Testing

/// What a plugin is lent reads the keys it declared and its own, nothing else (PH-0031): a real
/// plugin that tries an undeclared key while it registers, in a factory and in its start hook.
@Suite struct PluginGrantTests {
    private static func answer(_ place: String) -> ServiceLocatorEasyKey<String> {
        ServiceLocatorEasyKey(name: "fixture.undeclared.\(place)")
    }

    @Test func aPluginGetsTheKeysItDeclaredAndItsOwnAndNoOther() throws {
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.load(["ClockPlugin", "GreeterPlugin", "FixtureUndeclaredGet"].map { .file(BuiltPlugins.path($0)) })
        #expect(report.problems.isEmpty, "\(report.problems)")
        let answer = { (place: String) in host.locator.getService(key: Self.answer(place)) ?? "no answer" }
        #expect(answer("declared").hasPrefix("clock: "), "\(answer("declared"))")
        #expect(answer("own").hasPrefix("own: clock: "), "\(answer("own"))")
        let refusal = "plugin 'fixture-undeclared-get' may not get 'sample.greeter'"
        for place in ["at-registration", "in-factory", "at-start", "by-store-key"] {
            #expect(answer(place).hasPrefix(refusal), "\(place): \(answer(place))")
        }
        // Inject wraps the refusal with where the property is declared.
        #expect(answer("inject").hasPrefix("cannot inject 'sample.greeter'") && answer("inject").contains(refusal),
                "\(answer("inject"))")
        // What it lists is what it may get.
        let own = ["at-registration", "at-start", "by-store-key", "declared", "in-factory", "inject", "own", "slots"]
        #expect(answer("slots") == (own.map { "fixture.undeclared.\($0)" } + ["sample.clock"]).joined(separator: ","))
        // The greeter is there: the host's own get reaches it.
        #expect(host.locator.getService(key: SampleKeys.greeter) != nil)
    }

    /// A host's JSON report lists each plugin's grants: the keys it requires and its own.
    @Test func theReportListsEachPluginsGrants() throws {
        let host = PluginHost()
        defer { host.shutdown() }
        let report = host.load(["ClockPlugin", "GreeterPlugin"].map { .file(BuiltPlugins.path($0)) })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        let plugins = try #require(json["plugins"] as? [[String: Any]])
        let grants = Dictionary(uniqueKeysWithValues: plugins.compactMap { plugin in
            (plugin["name"] as? String).map { ($0, plugin["grants"] as? [String] ?? []) }
        })
        #expect(grants == ["clock": ["sample.clock"], "greeter": ["sample.clock", "sample.greeter", "sample.greeting"]])
    }
}
