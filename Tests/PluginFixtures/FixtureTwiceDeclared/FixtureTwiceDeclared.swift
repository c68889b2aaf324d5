import PluginAPI

/// Declares one key twice: a host that believed it would close the service twice at shutdown.
struct TwiceDeclaredPlugin: Plugin {
    static let journal = ServiceLocatorEasyKey<String>(name: "fixture.twice")
    static let metadata = PluginMetadata(name: "fixture-twice", version: "1.0.0", provides: [journal, journal])

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.journal, service: "once")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(TwiceDeclaredPlugin.self) }
