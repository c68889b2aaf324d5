@_spi(HostKit) import PluginAPI

/// A plugin's keys as the host's bookkeeping names them: at the bottom, for reports name them too.
extension PluginMetadata {
    /// The store keys of ``provides``: what the load plan and the host's bookkeeping work with.
    var providedStoreKeys: [String] { provides.map(\.storeKey) }
    /// The store keys of ``requires``.
    var requiredStoreKeys: [String] { requires.map(\.storeKey) }
    /// The keys the resolver lent to the plugin reads (its grants, PH-0031): those it requires and its
    /// own, as declared. Unsorted: the resolver orders them by hash (sorting them by their characters
    /// was a tenth of a start-up, BENCHMARKS round 24).
    var readableStoreKeys: [String] { requiredStoreKeys + providedStoreKeys }
    /// ``readableStoreKeys``, each once and sorted, as reports name them.
    package var grantedStoreKeys: [String] { Array(Set(readableStoreKeys)).sorted() }
}
