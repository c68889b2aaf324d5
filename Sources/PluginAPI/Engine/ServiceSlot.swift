/// A slot without parameters: it asks its core for the service.
final class ServiceSlot<Service: Sendable>: AnySlot, @unchecked Sendable {
    let core: ServiceCore<Service>

    init(key: String, core: ServiceCore<Service>, origin: String?) {
        self.core = core
        super.init(key: key, service: Service.self, mode: core.mode, origin: origin)
    }

    override func service<S>(as type: S.Type) throws -> S {
        guard S.self == Service.self else { throw mismatch(S.self, params: nil) }
        return try core.get(as: S.self)
    }

    override func anyService() throws -> Any {
        try core.get()
    }

    override var existingService: Any? { core.existing }

    override func provider<S>(as type: S.Type) throws -> ServiceProvider<S> {
        guard S.self == Service.self else { throw mismatch(S.self, params: nil) }
        // Same type, checked above: the cast is an identity.
        return ServiceProvider(core: unsafeDowncast(core, to: ServiceCore<S>.self))
    }
}
