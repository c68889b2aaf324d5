/// A key declared as naming a slot whose factory is `async`: ``ServiceLocatorKey/async`` of another
/// key, with its store key, service and parameters types. Get its service with
/// ``ServiceLocator/tryServiceAsync(key:)``, with this key or the one it wraps.
public struct AsyncSlotKey<Key: ServiceLocatorKey>: ServiceLocatorKey {
    public typealias Service = Key.Service
    /// The key it declares async.
    public let key: Key

    /// `key`, declared async.
    public init(_ key: Key) {
        self.key = key
    }

    public var storeKey: String { key.storeKey }

    public func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R {
        try key.withStoreKey(body)
    }

    public static var paramsMetatype: Any.Type? { Key.paramsMetatype }
    public static var isAsync: Bool { true }
}
