import Foundation
import PluginAPI

/// Tries to turn what its host lends it into the host's locator, by a cast: a `ServiceLocator` is a
/// `ServiceResolver`, so a host that lent its locator would hand over every mutating call. It says
/// what it found in two services: the registrar's resolver, and the start hook's.
struct DowncastPlugin: Plugin {
    static let registrarLent = ServiceLocatorEasyKey<String>(name: "fixture.downcast.registrar")
    static let startLent = ServiceLocatorEasyKey<String>(name: "fixture.downcast.start")
    static let metadata = PluginMetadata(name: "fixture-downcast", version: "1.0.0",
                                         provides: [registrarLent, startLent])
    let seen = SeenAtStart()

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.registrarLent, service: Self.verdict(registrar.services))
        let seen = seen
        try registrar.addLazyService(key: Self.startLent) { seen.verdict }
    }

    func start(services: ServiceResolver) async throws {
        seen.verdict = Self.verdict(services)
    }

    /// "a locator" if the cast succeeded, and then whether a slot could be added through it.
    static func verdict(_ services: ServiceResolver) -> String {
        guard let locator = services as? ServiceLocator else { return "a resolver" }
        let added = (try? locator.addService(key: ServiceLocatorEasyKey<Int>(name: "fixture.downcast.stolen"), service: 1)) != nil
        return added ? "a locator, and a slot was added through it" : "a locator"
    }
}

/// What the start hook saw.
final class SeenAtStart: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = "start did not run"

    var verdict: String {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(DowncastPlugin.self) }
