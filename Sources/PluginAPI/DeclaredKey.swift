/// A key as a plugin declares it in its ``PluginMetadata``: the store key and the types its slot is
/// for, so that a host can refuse a requirement met by a slot of another type before anything of
/// the plugin runs.
public struct DeclaredKey: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked: besides the key it holds metatypes, which are immutable.
    /// The store key of the slot.
    public let storeKey: String
    /// The service type, or `nil` for a key declared by its string only.
    let service: Any.Type?
    /// The parameters type, for a key of a slot with parameters.
    let params: Any.Type?
    /// True if the key names a slot whose factory is `async` (``ServiceLocatorKey/async``).
    let isAsync: Bool

    /// The declaration of `key`: its store key and service type (and parameters type, for a
    /// ``ServiceLocatorParamsKey``; async, for `key.async`).
    public init<Key: ServiceLocatorKey>(_ key: Key) {
        storeKey = key.storeKey
        service = Key.Service.self
        params = Key.paramsMetatype
        isAsync = Key.isAsync
    }

    /// A key known by its string only, as PluginAPI 4.0's metadata declared them: no type to check.
    init(storeKey: String) {
        self.storeKey = storeKey
        service = nil
        params = nil
        isAsync = false
    }

    /// The full name of the service type, or `nil` for a key declared by its string only.
    public var serviceType: String? { service.map { String(reflecting: $0) } }
    /// The full name of the parameters type, for a key of a slot with parameters.
    public var paramsType: String? { params.map { String(reflecting: $0) } }

    public static func == (lhs: DeclaredKey, rhs: DeclaredKey) -> Bool {
        lhs.storeKey == rhs.storeKey && lhs.service.map(ObjectIdentifier.init) == rhs.service.map(ObjectIdentifier.init)
            && lhs.params.map(ObjectIdentifier.init) == rhs.params.map(ObjectIdentifier.init) && lhs.isAsync == rhs.isAsync
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeKey)
        hasher.combine(service.map(ObjectIdentifier.init))
        hasher.combine(params.map(ObjectIdentifier.init))
    }

    /// `'key' (Type)`, `'key' ((Params) -> Type)`, `'key' (async Type)`, or `'key'` for a key declared
    /// by its string only.
    public var description: String {
        guard let serviceType else { return "'\(storeKey)'" }
        return "'\(storeKey)' (\(ServiceSlotInfo.signature(serviceType, params: paramsType, isAsync: isAsync)))"
    }
}

extension ServiceSlotInfo {
    /// Why this slot cannot serve `declared`, or `nil` if it can (same service type, the same
    /// parameters type or none on both sides, async on both sides or on neither; or a declaration
    /// without types). Two distinct types of the same name are said to be so: the module defining them
    /// is linked into more than one binary. A plain key met by a slot with parameters, or by an async
    /// slot, is a mismatch: every plain get of it would fail.
    @_spi(HostKit)
    public func mismatch(with declared: DeclaredKey) -> String? {
        guard let wanted = declared.service else { return nil }
        let sameParams = declared.params.map(ObjectIdentifier.init) == params.map(ObjectIdentifier.init)
        if wanted == service && sameParams && declared.isAsync == isAsync { return nil }
        let slotText = Self.signature(serviceType, params: paramsType, isAsync: isAsync)
        let wantedText = Self.signature(declared.serviceType ?? "", params: declared.paramsType, isAsync: declared.isAsync)
        guard slotText == wantedText else { return "the slot holds \(slotText), \(wantedText) is declared" }
        return "the slot holds \(slotText) and \(wantedText) is declared: "
            + ServiceLocatorError.twoCopies(of: declared.serviceType ?? slotText)
    }
}
