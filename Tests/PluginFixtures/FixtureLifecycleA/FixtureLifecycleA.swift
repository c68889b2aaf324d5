import FixtureLifecycleSupport
import PluginAPI

/// Lifecycle fixture A: requires nothing, required by B (see LifecycleFixture).
struct LifecycleA: LifecycleFixture {
    static let letter = "a"
    static let requires: [String] = []
    let hooks = LifecycleHooks()
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LifecycleA.self) }
