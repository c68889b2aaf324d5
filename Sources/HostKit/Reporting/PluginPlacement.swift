/// Where a plugin runs: in the host's process, or in a process of its own (``PluginProcesses``).
///
/// The command line's `--own-process` (``PluginProcesses/files``) gives each plugin file its
/// placement at start; the settings file's `placement` object (``PluginSettingsFile/placements``)
/// changes it, and a reload moves a served plugin to its new place (``ReloadReport/Action/moved``).
public enum PluginPlacement: String, Sendable, CaseIterable {
    /// In the host's process, with the host's rights.
    case inProcess = "in-process"
    /// In a process of its own, confined by its sandbox.
    case ownProcess = "own-process"

    /// `in process` or `own process`, as a report says it.
    public var described: String {
        switch self {
        case .inProcess: "in process"
        case .ownProcess: "own process"
        }
    }
}
