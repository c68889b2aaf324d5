extension DeclaredKey {
    /// The mangled name of the key's own type, for a key declared with a ``DistributedServiceKey``:
    /// with the store key, what another process remakes the key from (``remote(storeKey:keyTypeName:)``).
    @_spi(HostKit)
    public var keyTypeName: String? { distributedKeyType.flatMap { _mangledTypeName($0) } }

    /// The declaration of the distributed key of type `keyTypeName` (``keyTypeName`` in another
    /// process) whose store key is `storeKey`, if this process has that type (its contract library is
    /// loaded); `nil` otherwise. The name may come from another process: it is read only as
    /// ``stubType(named:)`` reads one.
    @_spi(HostKit)
    public static func remote(storeKey: String, keyTypeName: String) -> DeclaredKey? {
        guard let keyType = DeclaredKey.anyType(named: keyTypeName) as? any DistributedServiceKey.Type else { return nil }
        func declare<Key: DistributedServiceKey>(_: Key.Type) -> DeclaredKey { DeclaredKey(Key(name: storeKey)) }
        return declare(keyType)
    }
}
