import PluginAPI
import SampleContracts
import Synchronization

/// A plugin that requires the clock, and tries to get the greeter (which it never declared) while it
/// registers, in its start hook and in a factory; its services say what each get gave.
struct UndeclaredGetPlugin: Plugin {
    static func answer(_ name: String) -> ServiceLocatorEasyKey<String> {
        ServiceLocatorEasyKey(name: "fixture.undeclared.\(name)")
    }

    static let metadata = PluginMetadata(
        name: "fixture-undeclared-get", version: "1.0.0",
        provides: ["declared", "own", "in-factory", "at-registration", "at-start"].map(answer),
        requires: [SampleKeys.clock])
    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    /// What the start hook's get gave, for `at-start`.
    private static let atStart = Mutex("start hook not run")

    /// The greeter's greeting, or why there is none.
    private static func greeter(from services: ServiceResolver) -> String {
        do {
            return "got: \(try services.tryService(key: SampleKeys.greeter).greet("Ada"))"
        } catch {
            return "\(error)"
        }
    }

    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        let atRegistration = Self.greeter(from: services)
        try registrar.addLazyService(key: Self.answer("declared")) { "clock: \(try services.tryService(key: SampleKeys.clock).hour())" }
        try registrar.addLazyService(key: Self.answer("own")) { "own: \(try services.tryService(key: Self.answer("declared")))" }
        try registrar.addLazyService(key: Self.answer("in-factory")) { Self.greeter(from: services) }
        try registrar.addService(key: Self.answer("at-registration"), service: atRegistration)
        try registrar.addLazyService(key: Self.answer("at-start")) { Self.atStart.withLock { $0 } }
    }

    func start(services: ServiceResolver) async throws {
        let answer = Self.greeter(from: services)
        Self.atStart.withLock { $0 = answer }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(UndeclaredGetPlugin.self) }
