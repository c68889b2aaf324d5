import PluginAPI

/// Version 2 of `fixture-versioned-user`: it no longer requires `fixture.versioned` (which
/// `fixture-versioned` 3 drops), and provides only `fixture.versioned.user`.
struct VersionUser: Plugin {
    static let user = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user")
    static let metadata = PluginMetadata(name: "fixture-versioned-user", version: "2.0.0", provides: [user])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.user, service: "user two")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(VersionUser.self) }
