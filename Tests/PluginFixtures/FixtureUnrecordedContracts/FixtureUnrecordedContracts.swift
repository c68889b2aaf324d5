import PluginAPI
import SampleContracts

/// A plugin that uses SampleContracts but does not list it in `contractLibraries`: the host cannot
/// know which version it was built against, and refuses it.
struct UnrecordedContractsPlugin: Plugin {
    static let greeting = ServiceLocatorEasyKey<Greeting>(name: "fixture.greeting")
    static let metadata = PluginMetadata(name: "fixture-unrecorded", version: "1.0.0", provides: [greeting])
    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.greeting, service: Greeting(recipient: "nobody", text: "unchecked"))
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(UnrecordedContractsPlugin.self) }
