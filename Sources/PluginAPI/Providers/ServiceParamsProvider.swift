/// Hands out a service made from parameters, anew on every get.
public struct ServiceParamsProvider<Service: Sendable, Params>: Sendable {
    let make: @Sendable (Params) throws -> Service
    let identity: ServiceIdentity
    let logger: (any ServiceLogger)?
    private let cell = ParamsCell()

    /// A provider that passes parameters to `factory`.
    public init<Factory: ServiceParamsFactory>(factory: Factory)
    where Factory.Service == Service, Factory.Params == Params {
        self.init(identity: ServiceIdentity(type: Service.self), logger: nil, factory.makeService(params:))
    }

    /// A provider that makes its services with `make`.
    public init(_ make: @escaping @Sendable (Params) throws -> Service) {
        self.init(identity: ServiceIdentity(type: Service.self), logger: nil, make)
    }

    init(identity: ServiceIdentity, logger: (any ServiceLogger)?, _ make: @escaping @Sendable (Params) throws -> Service) {
        self.make = make
        self.identity = identity
        self.logger = logger
    }

    /// A service made for `params`, or a ``ServiceObtainError``.
    public func getService(params: Params) throws -> Service {
        try runFactory(cell, call: ParamsOnPath(params), identity, mode: .many, owned: false, logger: logger) { try make(params) }
    }

    /// A service made for `params`, or `nil` if it could not be made.
    public func getServiceAsOptional(params: Params) -> Service? {
        try? getService(params: params)
    }

    /// A service made for `params`, or the reason it could not be made.
    public func getServiceAsResult(params: Params) -> Result<Service, any Error> {
        Result { try getService(params: params) }
    }

    /// A service made for `params`; if it cannot be made, stops the program with the full reason.
    public func getServiceOrFatal(params: Params, file: StaticString = #fileID, line: UInt = #line) -> Service {
        do {
            return try getService(params: params)
        } catch {
            fatalError(failureMessage(error), file: file, line: line)
        }
    }

    /// A provider without parameters that always passes `params`.
    public func convert(params: Params) -> ServiceProvider<Service> where Params: Sendable {
        let make = self.make
        return ServiceProvider(core: ManyCore(identity: identity, logger: logger) { try make(params) })
    }
}
