/// A key that names one slot of a ``ServiceLocator`` and the type of service stored there.
///
/// The slot is addressed by ``storeKey``; the locator also remembers the service type the slot was
/// made for, so a key whose string matches but whose `Service` differs gets a clear
/// ``ServiceLocatorError/typeMismatch(key:registered:requested:)`` instead of a wrong object.
public protocol ServiceLocatorKey<Service>: Sendable {
    /// The type handed out for this key: a protocol (`any Greeter`) or a concrete type. `Sendable`,
    /// because a locator hands its services to any thread.
    associatedtype Service: Sendable
    /// The unique string that addresses the slot.
    var storeKey: String { get }

    /// Runs `body` with the store key, lent rather than copied where the key can: a read-only get
    /// then touches no reference count of the key's string, which threads getting the same key would
    /// otherwise contend on. Optional: the default copies ``storeKey``.
    func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R
}

extension ServiceLocatorKey {
    /// Lends a copy of ``storeKey`` to `body`.
    public func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R {
        try body(storeKey)
    }

    /// This key, declared as naming a slot whose factory is `async`: list it so in a plugin's
    /// metadata (`provides: [Keys.archive.async]`), and the host refuses a module that registers it
    /// with a plain factory, or a requirement met by a plain slot, and the other way round. It gets
    /// the same slot as the key itself.
    public var async: some ServiceLocatorKey<Service> { AsyncSlotKey(key: self) }
}
