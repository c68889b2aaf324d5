import PluginAPI

/// Declares a plain `Int` service, then registers the key with an `async` factory: every plain get of
/// the key would fail. The host must refuse the module, naming both shapes.
struct UndeclaredAsyncPlugin: Plugin {
    static let declared = ServiceLocatorEasyKey<Int>(name: "fixture.undeclared-async")
    static let metadata = PluginMetadata(name: "fixture-undeclared-async", version: "1.0.0", provides: [declared])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addAsyncService(key: Self.declared, mode: .lazy) { 1 }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(UndeclaredAsyncPlugin.self) }
