import PluginAPI

/// A plugin that tries to add a slot after start-up through a registrar it kept (the resolver its
/// registrar lends has no add at all). Its service reports what the attempt got: it must be refused.
struct LateRegistrationPlugin: Plugin {
    static let attempts = ServiceLocatorEasyKey<[String]>(name: "fixture.late-attempts")
    static let metadata = PluginMetadata(name: "fixture-late", version: "1.0.0", provides: [attempts])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let kept = KeptRegistrar(registrar)
        try registrar.addLazyService(key: Self.attempts) {
            let sneaky = ServiceLocatorEasyKey<String>(name: "fixture.sneaky")
            return [Self.outcome { try kept.registrar.addService(key: sneaky, service: "through the registrar") }]
        }
    }

    static func outcome(_ attempt: () throws -> Void) -> String {
        do {
            try attempt()
            return "added"
        } catch {
            return String(describing: error)
        }
    }
}

/// Smuggles the registrar past the end of registration, as a hostile plugin would.
final class KeptRegistrar: @unchecked Sendable {
    let registrar: ModuleRegistrar
    init(_ registrar: ModuleRegistrar) { self.registrar = registrar }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LateRegistrationPlugin.self) }
