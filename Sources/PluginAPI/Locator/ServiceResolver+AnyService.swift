extension ServiceResolver {
    /// The service in the slot `storeKey` of the locator this resolver reads now, whatever its type,
    /// awaited if its factory is `async`: what a host serves another process that asks by store key.
    @_spi(HostKit)
    public final func anyService(storeKey: String) async throws -> Any {
        try await reading(granted: storeKey).anyService(storeKey: storeKey, params: nil)
    }
}
