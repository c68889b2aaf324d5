public import Distributed

extension DeclaredKey {
    /// The stub type of a key declared with a ``DistributedServiceKey``, plain (not `async`, without
    /// parameters): the type a host makes proxies of; `nil` for any other key.
    @_spi(HostKit)
    public var stubType: (any DistributedActor.Type)? {
        func stub<Key: DistributedServiceKey>(_: Key.Type) -> any DistributedActor.Type { Key.Stub.self }
        return distributedKey.map { stub($0) }
    }

    /// The mangled name of ``stubType``, by which another process finds the same type
    /// (``stubType(named:)``); `nil` for a key that is not distributed.
    @_spi(HostKit)
    public var stubTypeName: String? { stubType.flatMap { _mangledTypeName($0) } }

    /// True if the key is a ``DistributedServiceKey`` declared plain (not `async`, without
    /// parameters): a service a host can serve from another process.
    @_spi(HostKit)
    public var isDistributed: Bool { distributedKey != nil }

    /// The type of a key declared with a ``DistributedServiceKey``, plain (not `async`, without
    /// parameters), from which with ``storeKey`` the key is made again
    /// (``DistributedServiceKey/init(name:)``); `nil` for any other key.
    @_spi(HostKit)
    public var distributedKeyType: (any DistributedServiceKey.Type)? { distributedKey }

    /// Adds to `registry` a slot of this key's own service type whose service is made by `proxy` once,
    /// on the first get: so a requirement declared with the key matches it as it matches the slot of a
    /// plugin in process. A locator adds it as added by `origin`; a module's registrar as its module's,
    /// once the module is accepted. A proxy that is not of the service type fails that get
    /// with ``ServiceLocatorError/wrongProxyType(key:proxy:service:)``. Throws
    /// ``ServiceLocatorError/proxySlotRefused(key:reason:)`` for a key that has parameters, or is
    /// `async`, or is no ``DistributedServiceKey``, and what `registry` throws for any add (its key
    /// taken, read-only).
    @_spi(HostKit)
    public func addProxySlot(to registry: some ServiceRegistry, origin: String,
                             proxy: @escaping @Sendable () throws -> Any) throws {
        let signature = ServiceSlotInfo.signature(serviceType, params: paramsType, isAsync: isAsync)
        guard params == nil, !isAsync else {
            let declared = isAsync ? "async" : "with parameters"
            throw ServiceLocatorError.proxySlotRefused(key: storeKey, reason: "it is declared \(declared) (\(signature)), "
                + "and a distributed service is a plain slot (no parameters, no async factory)")
        }
        guard let distributedKey else {
            throw ServiceLocatorError.proxySlotRefused(key: storeKey, reason: "it is declared as \(signature) with a "
                + "plain key; only a service declared with a DistributedServiceKey can be")
        }
        let registration = Self.proxyRegistration(distributedKey, storeKey: storeKey, proxy)
        if let locator = registry as? ServiceLocator {
            try locator.register(registration, replace: false, origin: origin)
        } else {
            try registry.register(registration, replace: false)
        }
    }

    /// The lazy slot of `storeKey` for `Key.Service`, whose service `proxy` makes: the proxy is made
    /// once, on the first get, and every later get is a plain one.
    private static func proxyRegistration<Key: DistributedServiceKey>(
        _: Key.Type, storeKey: String, _ proxy: @escaping @Sendable () throws -> Any
    ) -> ServiceRegistration {
        ServiceRegistration(key: storeKey, mode: .lazy) { () throws -> Key.Service in
            let made = try proxy()
            guard let service = made as? Key.Service else {
                throw ServiceLocatorError.wrongProxyType(
                    key: storeKey, proxy: String(reflecting: type(of: made)), service: String(reflecting: Key.Service.self))
            }
            return service
        }
    }

    /// The longest mangled name ``stubType(named:)`` looks up: far longer than any stub's.
    static let longestStubTypeName = 1024
    /// The stack ``stubType(named:)`` needs left to look a name up: the runtime's demangler recurses
    /// about 1.3 KiB deep per level of nesting, up to the 500 or so levels it accepts (measured:
    /// a name nested 500 deep overflowed a 512 KiB stack).
    static let stackForStubTypeLookup: UInt = 1 << 20

    /// The distributed actor type whose mangled name is `mangledName` (``stubTypeName`` in another
    /// process), if this process has it; `nil` for any other name. The name may come from another
    /// process, so what could crash this one is refused unread: a name with bytes outside printable
    /// ASCII (which the runtime would read as references into memory), longer than 1,024 bytes, or
    /// looked up on a thread with less than 1 MiB of stack left (a deeply nested name would
    /// overflow it; threads get 8 MiB by default).
    @_spi(HostKit)
    public static func stubType(named mangledName: String) -> (any DistributedActor.Type)? {
        anyType(named: mangledName) as? any DistributedActor.Type
    }

    /// The type whose mangled name is `mangledName`, read with the care a name from another process
    /// needs (see ``stubType(named:)``).
    static func anyType(named mangledName: String) -> Any.Type? {
        let bytes = mangledName.utf8
        guard !bytes.isEmpty, bytes.count <= longestStubTypeName, bytes.allSatisfy({ (0x20..<0x7F).contains($0) }),
              StackHeadroom.hasLeft(stackForStubTypeLookup)
        else { return nil }
        return _typeByName(mangledName)
    }
}
