import PluginAPI

/// Version 3 of `fixture-versioned-user`: it requires `fixture.provider` (of `fixture-provider`), not
/// `fixture.versioned`, and provides `fixture.versioned.user` made from it.
struct VersionUser: Plugin {
    static let user = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user")
    static let provider = ServiceLocatorEasyKey<String>(name: "fixture.provider")
    static let metadata = PluginMetadata(name: "fixture-versioned-user", version: "3.0.0", provides: [user],
                                         requires: [provider])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        try registrar.addService(key: Self.user, mode: .many) { "user of \(try services.tryService(key: Self.provider))" }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(VersionUser.self) }
