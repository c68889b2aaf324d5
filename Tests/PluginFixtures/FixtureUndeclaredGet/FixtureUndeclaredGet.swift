@_spi(HostKit) import PluginAPI
import SampleContracts
import Synchronization

/// A plugin that requires the clock, and tries to get the greeter (which it never declared) while it
/// registers, in its start hook and in a factory, and by the other doors a plugin has: `Inject`, the
/// host's SPI get by store key (imported), and the list of slots; its services say what each gave.
struct UndeclaredGetPlugin: Plugin {
    static func answer(_ name: String) -> ServiceLocatorEasyKey<String> {
        ServiceLocatorEasyKey(name: "fixture.undeclared.\(name)")
    }

    static let metadata = PluginMetadata(
        name: "fixture-undeclared-get", version: "1.0.0",
        provides: ["declared", "own", "in-factory", "at-registration", "at-start", "inject", "by-store-key", "slots"].map(answer),
        requires: [SampleKeys.clock])
    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    /// What the start hook's gets gave: `at-start`, `by-store-key`.
    private static let atStart = Mutex(["at-start": "start hook not run", "by-store-key": "start hook not run"])

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
        for name in ["at-start", "by-store-key"] {
            try registrar.addLazyService(key: Self.answer(name)) { Self.atStart.withLock { $0[name] ?? "" } }
        }
        try registrar.addLazyService(key: Self.answer("inject")) {
            do {
                return "got: \(try Inject(SampleKeys.greeter, via: services, .lazy).get().greet("Ada"))"
            } catch {
                return "\(error)"
            }
        }
        try registrar.addLazyService(key: Self.answer("slots")) { services.slots.map(\.key).joined(separator: ",") }
    }

    func start(services: ServiceResolver) async throws {
        let answer = Self.greeter(from: services)
        let byStoreKey: String
        do {
            byStoreKey = "got: \(try await services.anyService(storeKey: SampleKeys.greeter.storeKey))"
        } catch {
            byStoreKey = "\(error)"
        }
        Self.atStart.withLock { $0 = ["at-start": answer, "by-store-key": byStoreKey] }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(UndeclaredGetPlugin.self) }
