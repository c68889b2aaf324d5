/// A reload report's entry made from a plugin read: beside ``LoadedPlugin``, below which reports stay.
extension ReloadReport.Entry {
    /// What `action` did to `plugin` (replacing `previous`, if it did), and why not, if it failed.
    init(_ action: ReloadReport.Action, _ plugin: LoadedPlugin, previous: LoadedPlugin? = nil, error: PluginLoadError? = nil) {
        self.init(action: action, plugin: plugin.metadata.name, path: plugin.path, version: plugin.metadata.version,
                  previousVersion: previous?.metadata.version, error: error)
        if let previous {
            // Its own keys are granted as they are provided (the slots show them): the grants that say
            // something are the services of others.
            let (old, new) = (Set(previous.metadata.requiredStoreKeys), Set(plugin.metadata.requiredStoreKeys))
            grantsAdded = new.subtracting(old).sorted()
            grantsRemoved = old.subtracting(new).sorted()
        }
    }
}
