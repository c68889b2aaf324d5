import FixtureLifecycleSupport
import PluginAPI

/// Version 5 of `fixture-versioned`: it also claims `fixture.versioned.user`, a key of another plugin
/// (`fixture-versioned-user`): an upgrade must not let it take that key over.
struct Versioned: Plugin {
    static let user = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user")
    static let metadata = PluginMetadata(name: "fixture-versioned", version: "5.0.0", provides: [versionedKey, user])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: versionedKey, service: "5")
        try registrar.addService(key: Self.user, service: "hijacked by 5")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(Versioned.self) }
