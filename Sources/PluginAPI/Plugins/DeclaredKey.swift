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
    var serviceType: String { TypeName.of(service) }
    /// The full name of the parameters type, for a key of a slot with parameters.
    var paramsType: String? { params.map(TypeName.of) }

    /// `'key' (Type)`, `'key' ((Params) -> Type)` or `'key' (async Type)`.
    public var description: String {
        "'\(storeKey)' (\(ServiceSlotInfo.signature(serviceType, params: paramsType, isAsync: isAsync)))"
    }
}
