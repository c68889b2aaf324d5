/// A ready-made key: the store key is the service's full type name unless you give another name,
/// so one service type can have several slots.
///
/// Keep keys in constants (`static let`): the default store key is computed once, at init.
public struct ServiceLocatorEasyKey<Service: Sendable>: ServiceLocatorKey {
    /// The service's full type name, such as `MyModule.Greeter`, or the name given.
    public let storeKey: String

    /// Lends the stored key to `body`, without copying it.
    public func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R {
        try body(storeKey)
    }

    /// A key named `name`, by default after the service type (`MyModule.Greeter`); give a name for a
    /// second slot of the same type.
    public init(name: String = String(reflecting: Service.self)) {
        storeKey = name
    }
}
