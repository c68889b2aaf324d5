import PluginAPI

/// What a host counts of its plugins: each slot's gets, failed gets and services made with how long
/// their factories took (PluginAPI's `ServiceMetrics`, which this refines), and the host's own
/// events about each plugin: how its hooks ended and how long they took, what reloads did to it, and
/// the restarts of its process of its own and the calls the host made to it there. Give it to ``PluginHost`` (`metrics:`); `Integrations/`
/// has one that records into swift-metrics (`PluginHostMetrics`). Each event's method does nothing
/// unless implemented. A host without metrics counts nothing, and its gets cost what they did.
public protocol PluginMetrics: ServiceMetrics {
    /// `plugin`'s `hook` (`start`, `shutdown`, or `close` for a closable service) ended with
    /// `outcome` after `duration`.
    func hookEnded(plugin: String, hook: String, outcome: HookOutcome, duration: Duration)
    /// A reload did `action` to `plugin` (added, upgraded, restarted, withdrawn, kept, refused).
    func reloaded(plugin: String, action: ReloadReport.Action)
    /// The process of `plugin`, placed in a process of its own, ended and was started again.
    func processRestarted(plugin: String)
    /// A call of the host's to `plugin`, placed in a process of its own, ended after `duration`: its
    /// `method` (its name: `echo`) and `outcome`: `answered`, `threw` (the method threw) or `failed` (no
    /// answer came: the process ended, the call timed out or was refused).
    func processCalled(plugin: String, method: String, outcome: String, duration: Duration)
}

extension PluginMetrics {
    public func hookEnded(plugin: String, hook: String, outcome: HookOutcome, duration: Duration) {}
    public func reloaded(plugin: String, action: ReloadReport.Action) {}
    public func processRestarted(plugin: String) {}
    public func processCalled(plugin: String, method: String, outcome: String, duration: Duration) {}
}

extension PluginMetrics {
    /// Tells each entry of `report` (a shutdown's, or a reload's old versions') as a hook that ended.
    func record(_ report: ShutdownReport) {
        for entry in report.entries {
            hookEnded(plugin: entry.plugin, hook: entry.service == nil ? "shutdown" : "close", outcome: entry.outcome,
                      duration: entry.duration)
        }
    }

    /// Tells what `report` did to each plugin, and its old versions' hooks.
    func record(_ report: ReloadReport) {
        for entry in report.entries { reloaded(plugin: entry.plugin, action: entry.action) }
        record(report.stopped)
    }
}
