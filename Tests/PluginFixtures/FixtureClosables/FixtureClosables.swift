import FixtureLifecycleSupport
import PluginAPI

/// One closable instance, made at registration (`atOne`) and registered under two keys; it reports
/// each close to the test's control (`close shared`). Its start hook asks the control too
/// (`start closables`) and throws if told to, so that the plugin is dropped with the instance made.
struct ClosablesPlugin: Plugin {
    static let one = ServiceLocatorEasyKey<ReportingClosable>(name: "fixture.closable.one")
    static let two = ServiceLocatorEasyKey<ReportingClosable>(name: "fixture.closable.two")
    static let metadata = PluginMetadata(name: "fixture-closables", version: "1.0.0", provides: [one, two],
                                         requires: [lifecycleControlKey])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let shared = ReportingClosable(control: registrar.services.getService(key: lifecycleControlKey), event: "close shared")
        try registrar.addService(key: Self.one, service: shared)
        try registrar.addService(key: Self.two, service: shared)
    }

    func start(services: ServiceResolver) async throws {
        if services.getService(key: lifecycleControlKey)?("start closables") == "throw" { throw Refused() }
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "told to refuse its start" }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(ClosablesPlugin.self) }
