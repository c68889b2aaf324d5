@testable import HostKit
import PluginAPI
import Testing

/// The plan alone, on descriptors made in the test: no library is opened.
@Suite struct LoadPlanTests {
    struct Empty: Module {
        func registerServices(in registrar: ModuleRegistrar) throws {}
    }

    func plugin(_ name: String, provides: [String] = [], requires: [String] = []) -> LoadedPlugin {
        let meta = PluginMetadata(name: name, version: "1", provides: provides, requires: requires)
        return LoadedPlugin(path: "/plugins/\(name).so", descriptor: PluginDescriptor(metadata: meta) { Empty() },
                            libraries: [.pluginAPI])
    }

    @Test func providersComeFirstAndDiscoveryOrderBreaksTies() {
        let plan = LoadPlan([plugin("c", requires: ["b.key"]), plugin("a"), plugin("b", provides: ["b.key"], requires: ["a.key"]),
                             plugin("a2", provides: ["a.key"])], existing: { _ in nil })
        #expect(plan.order.map(\.metadata.name) == ["a", "a2", "b", "c"])
        #expect(plan.refused.isEmpty)
    }

    @Test func aRequirementCycleIsReportedWithItsChain() {
        let plan = LoadPlan([plugin("x", provides: ["x"], requires: ["y"]), plugin("y", provides: ["y"], requires: ["x"]),
                             plugin("free")], existing: { _ in nil })
        #expect(plan.order.map(\.metadata.name) == ["free"])
        let errors = plan.refused.map(\.error)
        #expect(errors.contains(.requirementCycle(plugin: "x", chain: ["x", "y", "x"])))
        #expect(errors.contains(.requirementCycle(plugin: "y", chain: ["y", "x", "y"])))
    }

    @Test func keysAlreadyInTheLocatorMeetRequirementsAndConflict() {
        let plan = LoadPlan([plugin("user", requires: ["base"]), plugin("thief", provides: ["base"])],
                            existing: { ["base": "host"][$0] })
        #expect(plan.order.map(\.metadata.name) == ["user"])
        #expect(plan.refused.map(\.error) == [.keyConflict(key: "base", plugin: "thief", providedBy: "host")])
    }

    @Test func refusingAProviderRefusesWhatDependsOnIt() {
        let plan = LoadPlan([plugin("one", provides: ["k"]), plugin("two", provides: ["k", "k2"]),
                             plugin("needsK2", requires: ["k2"])], existing: { _ in nil })
        #expect(plan.order.map(\.metadata.name) == ["one"])
        #expect(plan.refused.map(\.error) == [
            .keyConflict(key: "k", plugin: "two", providedBy: "one"),
            .missingRequirement(plugin: "needsK2", key: "k2", reason: "its provider 'two' was refused"),
        ])
    }

    @Test func twoPluginsOfOneNameLoadOnce() {
        let plan = LoadPlan([plugin("same"), plugin("same")], existing: { _ in nil })
        #expect(plan.order.count == 1)
        #expect(plan.refused.count == 1)
    }

    /// A plugin listing one key twice conflicts with nobody, itself included; a refused plugin's keys
    /// stay free for a later one.
    @Test func aKeyListedTwiceIsNotAConflictAndARefusedPluginFreesItsKeys() {
        let plan = LoadPlan([plugin("twice", provides: ["k", "k"]), plugin("late", provides: ["free", "k"]),
                             plugin("after", provides: ["free"])], existing: { _ in nil })
        #expect(plan.order.map(\.metadata.name) == ["twice", "after"])
        #expect(plan.refused.map(\.error) == [.keyConflict(key: "k", plugin: "late", providedBy: "twice")])
    }

    /// A plugin refused for a key keeps it with its first provider: what requires it is ordered after
    /// that provider, not after whichever plugin is accepted next.
    @Test func aRefusedClaimantLeavesTheKeyWithItsProvider() {
        let plan = LoadPlan([plugin("needsK", requires: ["k"]), plugin("one", provides: ["k"]),
                             plugin("two", provides: ["k"]), plugin("x", provides: ["x"])], existing: { _ in nil })
        #expect(plan.order.map(\.metadata.name) == ["one", "needsK", "x"])
        #expect(plan.refused.map(\.error) == [.keyConflict(key: "k", plugin: "two", providedBy: "one")])
    }
}
