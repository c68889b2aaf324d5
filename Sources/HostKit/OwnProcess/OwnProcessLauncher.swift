internal import DynamicLoading
import PluginAPI

/// A host's placement of plugins in processes of their own, as its load pipeline asks for it
/// (``OwnProcessPlacement``): the files ``PluginProcesses`` names, each opened by a ``PluginProcess``.
struct OwnProcessLauncher: OwnProcessPlacement {
    /// Which plugins run in a process of their own, and how.
    let settings: PluginProcesses
    /// Where the plugins' own log lines go (the host's ``PluginLogs``); nil: nowhere.
    let logs: (any PluginLogHandler)?
    /// What counts the processes' restarts and the calls made to them; nil: nothing.
    let metrics: (any PluginMetrics)?
    /// Where what happens to the processes later is told (a crash, a restart, a withdrawal): escaped lines.
    let report: @Sendable (String) -> Void
    /// Who withdraws the plugin of a process given up on: the host, held weakly (its processes do
    /// not keep it alive).
    weak let owner: (any PluginProcessOwner)?

    func placesOwnProcess(_ candidate: PluginCandidate) -> Bool {
        settings.placesOwnProcess(candidate)
    }

    func launch(_ candidate: PluginCandidate, startTimeout: Duration, fileCheck: FileCheck?) -> Result<LoadedPlugin, PluginLoadError> {
        PluginProcess.launch(candidate, by: self, startTimeout: startTimeout, fileCheck: fileCheck)
    }
}
