import Foundation
import PluginAPI

/// Provides `fixture.late.maker`; its shutdown hook gets `fixture.late.closable` (a lazy service of
/// the plugin that requires this one, which shuts down before it), making it for the first time.
struct LateMakerPlugin: Plugin {
    static let maker = ServiceLocatorEasyKey<String>(name: "fixture.late.maker")
    static let metadata = PluginMetadata(name: "fixture-late-maker", version: "1.0.0", provides: [maker])
    let kept = KeptServices()

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.maker, service: "maker")
    }

    func start(services: ServiceResolver) async throws {
        kept.set(services)
    }

    func shutdown() async throws {
        _ = kept.get()?.getService(key: ServiceLocatorEasyKey<any ClosableService>(name: "fixture.late.closable"))
    }
}

/// The resolver the start hook got, for the shutdown hook.
final class KeptServices: @unchecked Sendable {
    // @unchecked: `services` is only touched under `lock`.
    private let lock = NSLock()
    private var services: ServiceResolver?

    func set(_ services: ServiceResolver) { lock.withLock { self.services = services } }
    func get() -> ServiceResolver? { lock.withLock { services } }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LateMakerPlugin.self) }
