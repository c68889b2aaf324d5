import FixtureLifecycleSupport
import PluginAPI

/// Version 2 of `fixture-versioned` (see VersionedFixture): the same plugin and type name in each version's file.
struct Versioned: VersionedFixture {
    static let version = "2"
    let hooks = LifecycleHooks()
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(Versioned.self) }
