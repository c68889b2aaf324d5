import PluginAPI

/// The keys of plugins that failed during a load (to register, or to start), so that the plugins
/// requiring one of them fail too, with the provider named.
struct FailedProviders {
    /// Key to the name of the failed plugin that provides it.
    private var providerOf: [String: String] = [:]

    /// Records that the plugin `meta` describes failed.
    mutating func add(_ meta: PluginMetadata) {
        meta.providedStoreKeys.forEach { providerOf[$0] = meta.name }
    }

    /// The error for the plugin `meta` describes if it requires a key of a failed plugin (which failed
    /// to do `what`), or nil.
    func missingRequirement(of meta: PluginMetadata, failedTo what: String) -> PluginLoadError? {
        guard let key = meta.requiredStoreKeys.first(where: { providerOf[$0] != nil }), let provider = providerOf[key] else {
            return nil
        }
        return .missingRequirement(plugin: meta.name, key: key, reason: "its provider '\(provider)' failed to \(what)")
    }
}
