/// A slot whose services are made from parameters.
final class ParamsSlot<Service: Sendable, Params>: AnySlot, @unchecked Sendable {
    let provider: ServiceParamsProvider<Service, Params>

    init(key: String, provider: ServiceParamsProvider<Service, Params>, origin: String?) {
        self.provider = provider
        super.init(key: key, service: Service.self, mode: .many, origin: origin)
    }

    override var paramsMetatype: Any.Type? { Params.self }

    /// `nil` as the parameters, if they are optional.
    private static var noParams: Params? {
        guard let optional = Params.self as? any ExpressibleByNilLiteral.Type else { return nil }
        return nilValue(of: optional)
    }

    /// `nil` of `type`, which is `Params`. Not `as? Params`: a cast of an optional into an optional
    /// type adds a layer, so `Int??` would get `.some(nil)`.
    private static func nilValue<Optional: ExpressibleByNilLiteral>(of type: Optional.Type) -> Params? {
        guard Optional.self == Params.self else { return nil }
        return unsafeBitCast(Optional(nilLiteral: ()), to: Params.self)
    }

    /// A get without parameters works when the parameters are optional: it passes `nil`.
    override func service<S>(as type: S.Type) throws -> S {
        guard S.self == Service.self, let none = Self.noParams else { throw mismatch(S.self, params: nil) }
        return unsafeBitCast(try provider.getService(params: none), to: S.self)
    }

    /// So does a provider for a key without parameters: each of its gets passes `nil`.
    override func provider<S>(as type: S.Type) throws -> ServiceProvider<S> {
        guard S.self == Service.self, Self.noParams != nil else { throw mismatch(S.self, params: nil) }
        let make = provider.make
        let failure = mismatch(S.self, params: nil)
        let withoutParams = ServiceProvider<Service>(core: ManyCore(identity: provider.identity, logger: provider.logger) {
            guard let none = ParamsSlot.noParams else { throw failure }
            return try make(none)
        })
        return unsafeBitCast(withoutParams, to: ServiceProvider<S>.self)
    }

    override func anyService() throws -> Any {
        try service(as: Service.self)
    }

    override func anyService(params: Any) throws -> Any {
        guard let params = params as? Params else {
            throw ServiceLocatorError.wrongParams(key: key, registered: String(reflecting: Params.self),
                                                  requested: String(reflecting: type(of: params)))
        }
        return try provider.getService(params: params)
    }

    override func service<S, P>(as type: S.Type, params: P) throws -> S {
        guard S.self == Service.self, P.self == Params.self else { throw mismatch(S.self, params: P.self) }
        return unsafeBitCast(try provider.getService(params: unsafeBitCast(params, to: Params.self)), to: S.self)
    }

    override func paramsProvider<S, P>(as type: S.Type, params: P.Type) throws -> ServiceParamsProvider<S, P> {
        guard S.self == Service.self, P.self == Params.self else { throw mismatch(S.self, params: P.self) }
        return unsafeBitCast(provider, to: ServiceParamsProvider<S, P>.self)
    }
}
