import PluginAPI

/// Declares a plain `String` service, then registers the key as a slot with `Int` parameters: every
/// plain get of the key would fail. The host must refuse the module, naming both shapes.
struct WrongShapePlugin: Plugin {
    static let declared = ServiceLocatorEasyKey<String>(name: "fixture.shape")
    static let metadata = PluginMetadata(name: "fixture-wrong-shape", version: "1.0.0", provides: [declared])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: ServiceLocatorParamsEasyKey<String, Int>(name: "fixture.shape")) { "\($0)" }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(WrongShapePlugin.self) }
