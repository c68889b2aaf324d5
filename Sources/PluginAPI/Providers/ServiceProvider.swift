/// Hands out one service and hides how it is made: an existing instance, a singleton made at once,
/// on first use or while held, or a new instance on every get (see ``ServiceFactoryMode``).
///
/// Providers are values that share their state: copies hand out the same singleton. Any number of
/// threads may get from one provider at once; a singleton is made exactly once.
public struct ServiceProvider<Service: Sendable>: Sendable {
    let core: ServiceCore<Service>

    init(core: ServiceCore<Service>) {
        self.core = core
    }

    /// A provider of an instance that already exists (`atOne`).
    public init(_ service: Service) {
        core = ServiceCore(ready: service, identity: ServiceIdentity(type: Service.self))
    }

    /// A provider that keeps the factory's services as its `mode` says. An `atOne` factory runs now.
    public init<Factory: ServiceFactory>(factory: Factory) where Factory.Service == Service {
        self.init(mode: factory.mode, identity: ServiceIdentity(type: Service.self), logger: nil, factory.makeService)
    }

    /// A provider that keeps the factory's services as its `mode` says; an `atOne` factory runs now,
    /// and its error is thrown here, wrapped in a ``ServiceObtainError`` as every get wraps it, instead
    /// of being kept for every get. Other modes never throw here.
    public init<Factory: ServiceFactory>(tryFactory factory: Factory) throws where Factory.Service == Service {
        guard factory.mode == .atOne else {
            self.init(factory: factory)
            return
        }
        do {
            self.init(try factory.makeService())
        } catch {
            throw factoryFailed(error, making: ServiceIdentity(type: Service.self), logger: nil)
        }
    }

    /// A provider that passes `params` to a factory with parameters, anew on every get.
    public init<Factory: ServiceParamsFactory>(factory: Factory, params: Factory.Params)
    where Factory.Service == Service, Factory.Params: Sendable {
        self = ServiceParamsProvider(factory: factory).convert(params: params)
    }

    /// A provider with the given mode whose services `make` makes. For `atOne` it runs now.
    public init(mode: ServiceFactoryMode, _ make: @escaping @Sendable () throws -> Service) {
        self.init(mode: mode, identity: ServiceIdentity(type: Service.self), logger: nil, make)
    }

    init(mode: ServiceFactoryMode, identity: ServiceIdentity, logger: (any ServiceLogger)?,
         _ make: @escaping @Sendable () throws -> Service) {
        core = ServiceCore.make(mode: mode, identity: identity, logger: logger, make)
    }

    /// How this provider keeps its service.
    var mode: ServiceFactoryMode { core.mode }

    /// The service, or a ``ServiceObtainError`` saying which service failed, why, and on what path.
    public func getService() throws -> Service {
        try core.get()
    }

    /// The service, or `nil` if it could not be made.
    public func getServiceAsOptional() -> Service? {
        try? core.get()
    }

    /// The service or the reason it could not be made.
    public func getServiceAsResult() -> Result<Service, any Error> {
        Result { try core.get() }
    }

    /// The service; if it cannot be made, stops the program with the full reason and the caller's
    /// location. Use it where a missing service is a programming error, instead of `try!`.
    public func getServiceOrFatal(file: StaticString = #fileID, line: UInt = #line) -> Service {
        do {
            return try core.get()
        } catch {
            fatalError(failureMessage(error), file: file, line: line)
        }
    }
}

/// The message for a get that must not fail.
func failureMessage(_ error: any Error) -> String {
    (error as? ServiceObtainError)?.fatalMessage ?? "Failed to obtain service: \(error)"
}
