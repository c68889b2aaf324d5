internal import DynamicLoading
@_spi(HostKit) import PluginAPI

extension ReloadRun {
    /// The plugin served by the process `peer` lost that process for good: it ended more often than
    /// its ``PluginProcesses/RestartPolicy`` allows (`reason` says how). The plugin is withdrawn as a
    /// reload withdraws one whose file is gone (its services removed in one swap, then stopped), and
    /// with it every plugin that requires it, directly or through others: their requirement can no
    /// longer be met, and a reload would not keep them serving without it either. Returns what was
    /// withdrawn, as a reload report's entries; nil if the host no longer serves that process (a
    /// reload upgraded or withdrew the plugin meanwhile). A later reload finds the plugin's file not
    /// served and loads it again, in a new process.
    ///
    /// Run while the host holds its load lock, as a reload is; on a thread of its own, never the one
    /// that reaps children, which a reload or shutdown may wait for.
    func withdrawPlugin(servedBy peer: String, because reason: String) -> ReloadReport? {
        let published = host.publishedPlugins
        guard let plugin = published.first(where: { $0.servedBy == peer }) else { return nil }
        let dependents = ReloadStep.dependents(of: [plugin], among: published)
        let leaving = Set([plugin.metadata.name] + dependents.map(\.metadata.name))
        let withdrawing = published.filter { leaving.contains($0.metadata.name) }
        let providedKeys = Set(withdrawing.flatMap(\.metadata.providedStoreKeys))
        var report = ReloadReport()
        withdraw(withdrawing, into: &report) { withdrawn in
            guard withdrawn.metadata.name != plugin.metadata.name else {
                return .processFailed(path: withdrawn.path, reason: "its process was withdrawn: \(reason)")
            }
            let key = withdrawn.metadata.requiredStoreKeys.first(where: providedKeys.contains) ?? "?"
            return .missingRequirement(plugin: withdrawn.metadata.name, key: key,
                                       reason: "whose provider was withdrawn with the process of '\(plugin.metadata.name)'")
        }
        return report
    }
}
