@testable import HostKit
import PluginAPI
import Testing

/// The plan alone, on descriptors made in the test: no library is opened.
@Suite struct LoadPlanTests {
    struct Empty: Module {
        func registerServices(in registrar: ModuleRegistrar) throws {}
    }

    func plugin(_ name: String, provides: [String] = [], requires: [String] = []) -> LoadedPlugin {
        let meta = PluginMetadata(name: name, version: "1", provides: provides.map(ServiceLocatorEasyKey<Int>.init(name:)),
                                  requires: requires.map(ServiceLocatorEasyKey<Int>.init(name:)))
        return LoadedPlugin(path: "/plugins/\(name).so", metadata: meta, libraries: [.pluginAPI]) { Empty() }
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

    /// A plugin listing a provided key twice is malformed (its service would be closed twice at
    /// shutdown) and refused; its keys, and the keys of a plugin refused for a conflict, stay free for
    /// a later plugin.
    @Test func aKeyListedTwiceIsMalformedAndARefusedPluginFreesItsKeys() {
        let plan = LoadPlan([plugin("twice", provides: ["k", "own", "k"]), plugin("one", provides: ["k"]),
                             plugin("late", provides: ["free", "k"]), plugin("after", provides: ["free", "own"])],
                            existing: { _ in nil })
        #expect(plan.order.map(\.metadata.name) == ["one", "after"])
        #expect(plan.refused.map(\.error) == [
            .malformedMetadata(path: "/plugins/twice.so", reason: "'provides' lists key 'k' twice"),
            .keyConflict(key: "k", plugin: "late", providedBy: "one"),
        ])
    }

    @Test func anEmptyNameOrKeyAndARequirementListedTwiceOrOfItsOwnAreMalformed() {
        let plan = LoadPlan([plugin(""), plugin("emptyKey", provides: ["a", ""]), plugin("emptyNeed", requires: [""]),
                             plugin("needsTwice", requires: ["k", "k"]), plugin("needsItself", provides: ["own"], requires: ["own"]),
                             plugin("k", provides: ["k"])], existing: { _ in nil })
        #expect(plan.order.map(\.metadata.name) == ["k"])
        #expect(plan.refused.map(\.error) == [
            .malformedMetadata(path: "/plugins/.so", reason: "the plugin's name is empty"),
            .malformedMetadata(path: "/plugins/emptyKey.so", reason: "'provides' lists an empty key"),
            .malformedMetadata(path: "/plugins/emptyNeed.so", reason: "'requires' lists an empty key"),
            .malformedMetadata(path: "/plugins/needsTwice.so", reason: "'requires' lists key 'k' twice"),
            .malformedMetadata(path: "/plugins/needsItself.so", reason: "it requires key 'own', which it provides itself"),
        ])
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
