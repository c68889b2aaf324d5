/// A key that names one slot of a ``ServiceLocator`` and the type of service stored there.
///
/// The slot is addressed by ``storeKey``; the locator also remembers the service type the slot was
/// made for, so a key whose string matches but whose `Service` differs gets a clear
/// ``ServiceLocatorError/typeMismatch(key:registered:requested:)`` instead of a wrong object.
public protocol ServiceLocatorKey: Sendable {
    /// The type handed out for this key: a protocol (`any Greeter`) or a concrete type. `Sendable`,
    /// because a locator hands its services to any thread.
    associatedtype Service: Sendable
    /// The unique string that addresses the slot.
    var storeKey: String { get }

    /// Runs `body` with the store key, lent rather than copied where the key can: a read-only get
    /// then touches no reference count of the key's string, which threads getting the same key would
    /// otherwise contend on. Optional: the default copies ``storeKey``. (Public, not an SPI, because a
    /// requirement that another module cannot see would keep it from conforming at all.)
    func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R

    /// The parameters type of the key's slot: `nil`, or `Params` for a ``ServiceLocatorParamsKey``.
    /// Both defaults are right; a key type never implements it. (A requirement, not a cast: a plugin's
    /// metadata declares many keys, and a conformance lookup per key cost about 1,400 instructions.)
    static var paramsMetatype: Any.Type? { get }

    /// True if the key names a slot whose factory is `async` (``AsyncSlotKey``, `key.async`): what a
    /// plugin declares in its metadata, so that a host refuses a slot of the other kind at load.
    /// The default, `false`, is right for every other key type.
    static var isAsync: Bool { get }
}

extension ServiceLocatorKey {
    public static var paramsMetatype: Any.Type? { nil }
    public static var isAsync: Bool { false }

    /// This key, declared as naming a slot whose factory is `async`: list it so in a plugin's
    /// metadata (`provides: [Keys.archive.async]`), and the host refuses a module that registers it
    /// with a plain factory, or a requirement met by a plain slot, and the other way round.
    public var async: AsyncSlotKey<Self> { AsyncSlotKey(self) }

    public func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R {
        try body(storeKey)
    }
}

/// A key for a slot whose service is made from parameters on every get.
public protocol ServiceLocatorParamsKey: ServiceLocatorKey {
    /// The type of the parameters passed to the factory.
    associatedtype Params
}

extension ServiceLocatorParamsKey {
    public static var paramsMetatype: Any.Type? { Params.self }
}

/// A ready-made key: the store key is the service's full type name unless you give another name,
/// so one service type can have several slots.
///
/// Keep keys in constants (`static let`): the default store key is computed once, at init.
public struct ServiceLocatorEasyKey<Service: Sendable>: ServiceLocatorKey {
    public let storeKey: String

    /// Lends the stored key to `body`, without copying it.
    public func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R {
        try body(storeKey)
    }

    /// A key named after the service type, such as `MyModule.Greeter`.
    public init() {
        storeKey = String(reflecting: Service.self)
    }

    /// A key with a name of your choice, for a second slot of the same type.
    public init(name: String) {
        storeKey = name
    }
}

/// A ready-made key for a slot with parameters; see ``ServiceLocatorEasyKey``.
public struct ServiceLocatorParamsEasyKey<Service: Sendable, Params>: ServiceLocatorParamsKey {
    public let storeKey: String

    /// A key named after the service type.
    public init() {
        storeKey = String(reflecting: Service.self)
    }

    /// A key with a name of your choice.
    public init(name: String) {
        storeKey = name
    }
}
