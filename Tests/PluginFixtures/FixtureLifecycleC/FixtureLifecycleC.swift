import FixtureLifecycleSupport
import PluginAPI

/// Lifecycle fixture C: requires B (see LifecycleFixture).
struct LifecycleC: LifecycleFixture {
    static let letter = "c"
    static let requires: [String] = ["b"]
    let hooks = LifecycleHooks()
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LifecycleC.self) }
