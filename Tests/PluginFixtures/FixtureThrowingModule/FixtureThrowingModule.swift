import PluginAPI

/// A plugin whose module registers one slot and then throws: nothing of it may remain.
struct ThrowingModulePlugin: Plugin {
    static let first = ServiceLocatorEasyKey<String>(name: "fixture.first")
    static let second = ServiceLocatorEasyKey<String>(name: "fixture.second")
    static let metadata = PluginMetadata(name: "fixture-throwing", version: "1.0.0", provides: [first, second])

    struct ConfigurationMissing: Error, CustomStringConvertible {
        var description: String { "configuration file fixture.conf is missing" }
    }

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.first, service: "first")
        throw ConfigurationMissing()
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(ThrowingModulePlugin.self) }
