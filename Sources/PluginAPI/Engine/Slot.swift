/// One slot of a locator: the types it was made for, where it came from, and how it serves.
///
/// A locator first asks a slot for the slot that serves it (``served()``: itself, or the slot a
/// ``DeferredSlot`` builds on first use), then makes its request there. Each kind of slot overrides
/// the requests it serves; the others are refused here with the error that says why (wrong type,
/// wrong parameters). Each compares the requested types with its own by metatype identity, so a get
/// needs no protocol-conformance cast.
class AnySlot: @unchecked Sendable {
    // @unchecked: a class with subclasses cannot be checked; every stored property here is immutable
    // and Sendable, and so are the subclasses' (a core, a provider), but two: DeferredSlot's build
    // closure and UnbuiltSlot's registration, each of which says at its site why it holds.
    let key: String
    let serviceMetatype: Any.Type
    let origin: String?
    let mode: ServiceFactoryMode

    init(key: String, service: Any.Type, mode: ServiceFactoryMode, origin: String?) {
        self.key = key
        serviceMetatype = service
        self.mode = mode
        self.origin = origin
    }

    /// The parameters type of a slot with parameters (computed: a stored field would cost every slot).
    var paramsMetatype: Any.Type? { nil }
    /// True for a slot whose factory is `async`.
    var isAsync: Bool { false }

    var serviceType: ObjectIdentifier { ObjectIdentifier(serviceMetatype) }

    /// Cheap to make: the type names inside are made only when read.
    var info: ServiceSlotInfo {
        ServiceSlotInfo(key: key, service: serviceMetatype, params: paramsMetatype, mode: mode, origin: origin,
                        isAsync: isAsync)
    }

    /// The slot that serves requests for this one, unretained (this slot keeps it alive). Every
    /// request below is made on it, so a stand-in that forwards nothing cannot forget a forward.
    func served() -> Unmanaged<AnySlot> {
        Unmanaged.passUnretained(self)
    }

    /// ``served()``, retained. A method, so `self`, which keeps the served slot alive, is alive until
    /// the retain: a caller's own reference may already be gone after its last use.
    final var servedSlot: AnySlot {
        served().takeUnretainedValue()
    }

    /// The served slot if it exists without building anything (a stand-in not used yet has none).
    var servedIfBuilt: AnySlot? { self }

    /// The service, for a get without parameters.
    func service<S>(as type: S.Type) throws -> S {
        throw mismatch(S.self, params: nil)
    }

    /// The service, for a get with `await`: an async slot awaits its factory, the others get as usual.
    func asyncService<S>(as type: S.Type) async throws -> S {
        try service(as: S.self)
    }

    /// The service that exists now, if any, without making one (for closing services at shutdown).
    var existingService: Any? { nil }

    /// The service made for `params`.
    func service<S, P>(as type: S.Type, params: P) throws -> S {
        throw mismatch(S.self, params: P.self)
    }

    /// The service as `Any`, for tools that know only the store key.
    func anyService() throws -> Any {
        throw ServiceLocatorError.wrongParams(key: info.key, registered: info.paramsType ?? "none", requested: "none")
    }

    /// The service made for `params` (of the slot's parameters type), as `Any`.
    func anyService(params: Any) throws -> Any {
        throw ServiceLocatorError.wrongParams(key: key, registered: info.paramsType ?? "none",
                                              requested: String(reflecting: type(of: params)))
    }

    /// The service as `Any`, awaited if the slot's factory is `async`.
    func anyServiceAsync() async throws -> Any {
        try anyService()
    }

    /// The provider, for a key without parameters.
    func provider<S>(as type: S.Type) throws -> ServiceProvider<S> {
        throw mismatch(S.self, params: nil)
    }

    /// The provider of an async slot.
    func asyncProvider<S>(as type: S.Type) throws -> ServiceAsyncProvider<S> {
        if ObjectIdentifier(S.self) == serviceType { throw ServiceLocatorError.typeMismatch(
            key: key, registered: "\(info.serviceType) (not async)", requested: "async \(String(reflecting: S.self))") }
        throw mismatch(S.self, params: nil)
    }

    /// The provider, for a key with parameters.
    func paramsProvider<S, P>(as type: S.Type, params: P.Type) throws -> ServiceParamsProvider<S, P> {
        throw mismatch(S.self, params: P.self)
    }

    /// The error for a request whose types do not fit this slot.
    func mismatch(_ service: Any.Type, params: Any.Type?) -> ServiceLocatorError {
        if ObjectIdentifier(service) != serviceType {
            return .typeMismatch(key: info.key, registered: info.serviceType, requested: String(reflecting: service))
        }
        return .wrongParams(key: info.key, registered: info.paramsType ?? "none",
                            requested: params.map { String(reflecting: $0) } ?? "none")
    }
}

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
