/// A slot whose factory is `async`. Only a get with `await` can hand out its service.
final class AsyncSlot<Service: Sendable>: AnySlot, @unchecked Sendable {
    let provider: ServiceAsyncProvider<Service>

    init(key: String, provider: ServiceAsyncProvider<Service>, origin: String?) {
        self.provider = provider
        super.init(key: key, service: Service.self, mode: provider.mode, origin: origin)
    }

    override var isAsync: Bool { true }

    override func service<S>(as type: S.Type) throws -> S {
        guard S.self == Service.self else { throw mismatch(S.self, params: nil) }
        throw ServiceLocatorError.asyncService(key: key)
    }

    override func asyncService<S>(as type: S.Type) async throws -> S {
        guard S.self == Service.self else { throw mismatch(S.self, params: nil) }
        return unsafeBitCast(try await provider.getService(), to: S.self)
    }

    override func anyService() throws -> Any {
        throw ServiceLocatorError.asyncService(key: key)
    }

    override func anyServiceAsync() async throws -> Any {
        try await provider.getService()
    }

    override var existingService: Any? { provider.core.existing }

    override func asyncProvider<S>(as type: S.Type) throws -> ServiceAsyncProvider<S> {
        guard S.self == Service.self else { throw mismatch(S.self, params: nil) }
        return unsafeBitCast(provider, to: ServiceAsyncProvider<S>.self)
    }
}
