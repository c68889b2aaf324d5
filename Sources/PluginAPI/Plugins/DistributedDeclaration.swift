public import Distributed

/// What a ``DistributedServiceKey`` declares besides its slot: the stub type, and how to add to a
/// locator a slot of the key's own service type that hands out a proxy. Captured when the key is
/// declared, the only time its generic type is known.
// @unchecked Sendable: a metatype and a closure that captures only the (Sendable) key, both immutable.
struct DistributedDeclaration: @unchecked Sendable {
    /// Makes the proxy that stands for the service in this process.
    typealias MakeProxy = @Sendable () throws -> Any

    /// The key's `Stub`.
    let stub: any DistributedActor.Type
    /// Adds the key's slot of proxies to a locator, as added by an origin.
    let addProxySlot: (_ locator: ServiceLocator, _ origin: String, _ proxy: @escaping MakeProxy) throws -> Void

    /// The declaration of `key` if it is a ``DistributedServiceKey``, else `nil`.
    init?(of key: some ServiceLocatorKey) {
        guard let key = key as? any DistributedServiceKey else { return nil }
        self.init(key)
    }

    private init<Key: DistributedServiceKey>(_ key: Key) {
        stub = Key.Stub.self
        addProxySlot = { locator, origin, proxy in
            // Lazy: the proxy is made once, on the first get, and every later get is a plain one.
            let registration = ServiceRegistration(key: key, mode: .lazy) {
                let made = try proxy()
                guard let service = made as? Key.Service else {
                    throw ServiceLocatorError.wrongProxyType(
                        key: key.storeKey, proxy: String(reflecting: type(of: made)),
                        service: String(reflecting: Key.Service.self))
                }
                return service
            }
            try locator.register(registration, replace: false, origin: origin)
        }
    }
}

extension DeclaredKey {
    /// The stub type of a key declared with a ``DistributedServiceKey``: the type a host makes
    /// proxies of; `nil` for any other key.
    @_spi(HostKit)
    public var stubType: (any DistributedActor.Type)? { distributed?.stub }

    /// The mangled name of ``stubType``, by which another process finds the same type
    /// (``stubType(named:)``); `nil` for a key that is not distributed.
    @_spi(HostKit)
    public var stubTypeName: String? { distributed.flatMap { _mangledTypeName($0.stub) } }

    /// True if the key is a ``DistributedServiceKey`` (or one made `async`).
    @_spi(HostKit)
    public var isDistributed: Bool { distributed != nil }

    /// Adds to `locator`, as added by `origin`, a slot of this key's own service type whose service is
    /// made by `proxy` once, on the first get: so a requirement declared with the key matches it as it
    /// matches the slot of a plugin in process. A proxy that is not of the service type fails that get
    /// with ``ServiceLocatorError/wrongProxyType(key:proxy:service:)``. Throws
    /// ``ServiceLocatorError/proxySlotRefused(key:reason:)`` for a key that is not a
    /// ``DistributedServiceKey``, or has parameters, or is `async`, and what `locator` throws for any
    /// add (its key taken, read-only).
    @_spi(HostKit)
    public func addProxySlot(to locator: ServiceLocator, origin: String,
                             proxy: @escaping @Sendable () throws -> Any) throws {
        let signature = ServiceSlotInfo.signature(serviceType, params: paramsType, isAsync: isAsync)
        guard let distributed else {
            throw ServiceLocatorError.proxySlotRefused(key: storeKey, reason: "it is declared as \(signature) with a "
                + "plain key; only a service declared with a DistributedServiceKey can be")
        }
        guard params == nil, !isAsync else {
            let declared = isAsync ? "async" : "with parameters"
            throw ServiceLocatorError.proxySlotRefused(key: storeKey, reason: "it is declared \(declared) (\(signature)), "
                + "and a distributed service is a plain slot (no parameters, no async factory)")
        }
        try distributed.addProxySlot(locator, origin, proxy)
    }

    /// The longest mangled name ``stubType(named:)`` looks up: far longer than any stub's.
    static let longestStubTypeName = 4096

    /// The distributed actor type whose mangled name is `mangledName` (``stubTypeName`` in another
    /// process), if this process has it; `nil` for any other name. The name may come from another
    /// process: a name with bytes outside printable ASCII (which the runtime would read as
    /// references into memory) or longer than 4,096 bytes is refused unread.
    @_spi(HostKit)
    public static func stubType(named mangledName: String) -> (any DistributedActor.Type)? {
        let bytes = mangledName.utf8
        guard !bytes.isEmpty, bytes.count <= longestStubTypeName, bytes.allSatisfy({ (0x20..<0x7F).contains($0) })
        else { return nil }
        return _typeByName(mangledName) as? any DistributedActor.Type
    }
}
