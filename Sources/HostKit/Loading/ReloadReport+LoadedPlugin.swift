/// A reload report's entry made from a plugin read: beside ``LoadedPlugin``, below which reports stay.
extension ReloadReport.Entry {
    /// What `action` did to `plugin` (replacing `previous`, if it did), and why not, if it failed.
    init(_ action: ReloadReport.Action, _ plugin: LoadedPlugin, previous: LoadedPlugin? = nil, error: PluginLoadError? = nil) {
        self.init(action: action, plugin: plugin.metadata.name, path: plugin.path, version: plugin.metadata.version,
                  previousVersion: previous?.metadata.version, error: error)
        if let previous {
            let (old, new) = (Set(previous.metadata.grantedStoreKeys), Set(plugin.metadata.grantedStoreKeys))
            grantsAdded = new.subtracting(old).sorted()
            grantsRemoved = old.subtracting(new).sorted()
        }
    }
}
