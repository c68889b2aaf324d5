/// A key as a plugin declares it in its ``PluginMetadata``: the store key and the types its slot is
/// for, so that a host can refuse a requirement met by a slot of another type before anything of
/// the plugin runs.
// @unchecked Sendable: besides the key it holds metatypes, which are immutable.
public struct DeclaredKey: @unchecked Sendable, CustomStringConvertible {
    /// The store key of the slot.
    public let storeKey: String
    /// The service type.
    let service: Any.Type
    /// The parameters type, for a key of a slot with parameters.
    let params: Any.Type?
    /// True if the key names a slot whose factory is `async` (``ServiceLocatorKey/async``).
    let isAsync: Bool
    /// The key's type, for a ``DistributedServiceKey`` declared plain (not `async`, no parameters: a
    /// distributed service is a plain slot): what its stub and its slot of proxies are made from;
    /// `nil` for any other key. A metatype, so a plain key's declaration copies and frees as before.
    let distributedKey: (any DistributedServiceKey.Type)?

    /// The declaration of `key`: its store key and service type (and parameters type, for a
    /// ``ServiceLocatorParamsKey``; async, for `key.async`; its stub, for a ``DistributedServiceKey``).
    init<Key: ServiceLocatorKey>(_ key: Key) {
        storeKey = key.storeKey
        service = Key.Service.self
        // The usual key first, by metatype: the conformance casts below cost about 1,400 instructions
        // each, and a host reads thousands of declared keys at start-up (50 plugins of 200 keys took
        // 25 ms instead of 20 with the casts alone). So an async key or one with parameters is not
        // asked whether it is distributed: it could not be served from another process anyway.
        if Key.self == ServiceLocatorEasyKey<Key.Service>.self {
            params = nil
            isAsync = false
            distributedKey = nil
        } else if let declared = key as? any AsyncDeclaration {
            params = declared.declaredParams
            isAsync = true
            distributedKey = nil
        } else {
            params = Self.params(of: key)
            isAsync = false
            distributedKey = params == nil ? (key as? any DistributedServiceKey).map { type(of: $0) } : nil
        }
    }

    /// `Params` of a ``ServiceLocatorParamsKey``, `nil` for any other key.
    static func params(of key: some ServiceLocatorKey) -> Any.Type? {
        func paramsType<Key: ServiceLocatorParamsKey>(_: Key) -> Any.Type { Key.Params.self }
        return (key as? any ServiceLocatorParamsKey).map { paramsType($0) }
    }

    /// The full name of the service type.
    var serviceType: String { String(reflecting: service) }
    /// The full name of the parameters type, for a key of a slot with parameters.
    var paramsType: String? { params.map { String(reflecting: $0) } }

    /// `'key' (Type)`, `'key' ((Params) -> Type)` or `'key' (async Type)`.
    public var description: String {
        "'\(storeKey)' (\(ServiceSlotInfo.signature(serviceType, params: paramsType, isAsync: isAsync)))"
    }
}

/// A key that declares an async slot (``AsyncSlotKey``), with the parameters type of the key it wraps.
protocol AsyncDeclaration {
    var declaredParams: Any.Type? { get }
}

extension AsyncSlotKey: AsyncDeclaration {
    var declaredParams: Any.Type? { DeclaredKey.params(of: key) }
}

extension ServiceSlotInfo {
    /// Why this slot cannot serve `declared`, or `nil` if it can (same service type, the same
    /// parameters type or none on both sides, async on both sides or on neither). Two distinct types
    /// of the same name are said to be so: the module defining them is linked into more than one
    /// binary. A plain key met by a slot with parameters, or by an async slot, is a mismatch: every
    /// plain get of it would fail.
    @_spi(HostKit)
    public func mismatch(with declared: DeclaredKey) -> String? {
        let sameParams = declared.params.map(ObjectIdentifier.init) == params.map(ObjectIdentifier.init)
        if declared.service == service && sameParams && declared.isAsync == isAsync { return nil }
        let slotText = Self.signature(serviceType, params: paramsType, isAsync: isAsync)
        let wantedText = Self.signature(declared.serviceType, params: declared.paramsType, isAsync: declared.isAsync)
        guard slotText == wantedText else { return "the slot holds \(slotText), \(wantedText) is declared" }
        return "the slot holds \(slotText) and \(wantedText) is declared: "
            + ServiceLocatorError.twoCopies(of: declared.serviceType)
    }
}
