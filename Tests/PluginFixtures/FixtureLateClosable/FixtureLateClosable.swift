import FixtureLifecycleSupport
import PluginAPI

/// A lazy closable service that reports its close to the test's control (`close late`), from a
/// plugin that requires the late maker: so it starts after the maker and shuts down before it. Its
/// start hands the maker work that gets this closable (its own key, through its own resolver), which
/// the maker's shutdown hook runs: the closable is made only after this plugin's services were closed.
struct LateClosablePlugin: Plugin {
    static let closable = ServiceLocatorEasyKey<any ClosableService>(name: "fixture.late.closable")
    static let maker = ServiceLocatorEasyKey<@Sendable (@escaping @Sendable () -> Void) -> Void>(name: "fixture.late.maker")
    static let metadata = PluginMetadata(name: "fixture-late-closable", version: "1.0.0", provides: [closable],
                                         requires: [lifecycleControlKey, maker])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        try registrar.addLazyService(key: Self.closable) {
            ReportingClosable(control: services.getService(key: lifecycleControlKey), event: "close late")
        }
    }

    func start(services: ServiceResolver) async throws {
        try services.tryService(key: Self.maker)({ _ = services.getService(key: Self.closable) })
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LateClosablePlugin.self) }
