import FixtureLifecycleSupport
import PluginAPI

/// Version 4 of `fixture-versioned`: it requires `fixture.versioned.user.now`, a key of the plugin
/// that requires it (`fixture-versioned-user`): a requirement cycle an upgrade must refuse.
struct Versioned: Plugin {
    static let userNow = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user.now")
    static let metadata = PluginMetadata(name: "fixture-versioned", version: "4.0.0", provides: [versionedKey],
                                         requires: [userNow])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: versionedKey, service: "4")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(Versioned.self) }
