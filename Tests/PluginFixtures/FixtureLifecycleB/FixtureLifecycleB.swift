import FixtureLifecycleSupport
import PluginAPI

/// Lifecycle fixture B: requires A, required by C (see LifecycleFixture).
struct LifecycleB: LifecycleFixture {
    static let letter = "b"
    static let requires: [String] = ["a"]
    let hooks = LifecycleHooks()
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LifecycleB.self) }
