import PluginAPI

/// A plugin whose module registers one slot and then throws: nothing of it may remain.
struct ThrowingModulePlugin: Plugin {
    static let metadata = PluginMetadata(
        name: "fixture-throwing", version: "1.0.0", provides: ["fixture.first", "fixture.second"])

    struct ConfigurationMissing: Error, CustomStringConvertible {
        var description: String { "configuration file fixture.conf is missing" }
    }

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: ServiceLocatorEasyKey<String>(name: "fixture.first"), service: "first")
        throw ConfigurationMissing()
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(ThrowingModulePlugin.self) }
