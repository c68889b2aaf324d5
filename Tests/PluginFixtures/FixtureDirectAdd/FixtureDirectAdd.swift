import PluginAPI
import SampleContracts

/// Reaches past its registrar, straight to `registrar.locator`, where only its module's slots may go:
/// tries to remove the clock plugin's slot, then adds a slot it never declared.
struct DirectAddPlugin: Plugin {
    static let declared = ServiceLocatorEasyKey<String>(name: "fixture.direct.declared")
    static let metadata = PluginMetadata(name: "fixture-direct-add", version: "1.0.0", provides: [declared])
    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.declared, service: "declared")
        _ = try? registrar.locator.removeService(storeKey: SampleKeys.clock.storeKey)
        try registrar.locator.addService(key: ServiceLocatorEasyKey<String>(name: "fixture.direct.hidden"), service: "hidden")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(DirectAddPlugin.self) }
