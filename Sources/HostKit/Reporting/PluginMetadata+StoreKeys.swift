@_spi(HostKit) import PluginAPI

/// A plugin's keys as the host's bookkeeping names them: at the bottom, for reports name them too.
extension PluginMetadata {
    /// The store keys of ``provides``: what the load plan and the host's bookkeeping work with.
    var providedStoreKeys: [String] { provides.map(\.storeKey) }
    /// The store keys of ``requires``.
    var requiredStoreKeys: [String] { requires.map(\.storeKey) }
    /// The keys the resolver lent to the plugin reads (its grants, PH-0031): those it requires and its own, sorted.
    package var grantedStoreKeys: [String] { Array(Set(requiredStoreKeys + providedStoreKeys)).sorted() }
}
