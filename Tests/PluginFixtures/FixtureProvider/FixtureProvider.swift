import PluginAPI

/// `fixture-provider`: provides `fixture.provider`, which `fixture-versioned-user` 3 requires (a new
/// provider deployed with the new version of a plugin that now requires it).
struct Provider: Plugin {
    static let provided = ServiceLocatorEasyKey<String>(name: "fixture.provider")
    static let metadata = PluginMetadata(name: "fixture-provider", version: "1.0.0", provides: [provided])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.provided, service: "provider 1")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(Provider.self) }
