import FixtureLifecycleSupport
import PluginAPI

/// A lazy closable service that reports its close to the test's control (`close late`), from a
/// plugin that requires the late maker: so it starts after the maker and shuts down before it, and
/// the maker's shutdown hook makes this service only after this plugin's services were closed.
struct LateClosablePlugin: Plugin {
    static let closable = ServiceLocatorEasyKey<any ClosableService>(name: "fixture.late.closable")
    static let metadata = PluginMetadata(name: "fixture-late-closable", version: "1.0.0", provides: [closable],
                                         requires: [ServiceLocatorEasyKey<String>(name: "fixture.late.maker")])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        try registrar.addLazyService(key: Self.closable) {
            ReportingClosable(control: services.getService(key: lifecycleControlKey), event: "close late")
        }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LateClosablePlugin.self) }
