/// Hands out a service whose factory is `async`; get it with `await`. Copies share their state,
/// and any number of tasks may get at once (see ``ServiceAsyncFactory``).
public struct ServiceAsyncProvider<Service: Sendable>: Sendable {
    let core: AsyncCore<Service>

    /// A provider with the given mode whose services `make` makes. For `atOne` it starts now.
    public init(mode: ServiceFactoryMode, _ make: @escaping @Sendable () async throws -> Service) {
        core = AsyncCore(mode: mode, identity: ServiceIdentity(type: Service.self), logger: nil, make: make)
    }

    init(core: AsyncCore<Service>) {
        self.core = core
    }

    /// How this provider keeps its service.
    var mode: ServiceFactoryMode { core.mode }

    /// The service, or a ``ServiceObtainError`` saying which service failed, why, and on what path.
    public func getService() async throws -> Service {
        try await core.get()
    }

    /// The service, or `nil` if it could not be made.
    public func getServiceAsOptional() async -> Service? {
        try? await core.get()
    }
}
