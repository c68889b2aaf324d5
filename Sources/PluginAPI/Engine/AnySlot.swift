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
