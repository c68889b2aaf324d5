/// A key declared as naming a slot whose factory is `async`: what ``ServiceLocatorKey/async`` makes.
/// It addresses the same slot as the key it wraps; only a plugin's declaration tells them apart.
struct AsyncSlotKey<Key: ServiceLocatorKey>: ServiceLocatorKey {
    typealias Service = Key.Service
    let key: Key

    var storeKey: String { key.storeKey }

    func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R {
        try key.withStoreKey(body)
    }
}

extension AsyncSlotKey: AsyncDeclaration {
    var declaredParams: Any.Type? { DeclaredKey.params(of: key) }
}
