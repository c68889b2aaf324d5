import FixtureLifecycleSupport
import PluginAPI

/// Lifecycle fixture D: requires nothing and nothing requires it, so it starts after B, whatever
/// becomes of B; its start reports which fixtures' services it can reach (see LifecycleFixture).
struct LifecycleD: LifecycleFixture {
    static let letter = "d"
    static let requires: [String] = []
    static let reportsReachAtStart = true
    let hooks = LifecycleHooks()
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LifecycleD.self) }
