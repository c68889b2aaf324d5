internal import DynamicLoading
import PluginAPI

/// A host's placement of plugins in processes of their own, as its load pipeline asks for it
/// (``OwnProcessPlacement``): the files ``PluginProcesses`` names, each opened by a ``PluginProcess``.
///
/// The room's map, in the order a plugin placed so lives (the host's half in `Host/`, the child's in
/// `Child/`, what they say to each other here):
/// 1. **launch**: ``PluginProcess/launch(_:by:startTimeout:fileCheck:)`` spawns the child (the
///    program ``PluginProcesses/executable``, which runs ``PluginChild/serve(discovery:)``), connects
///    to it and asks its ``ChildControlService`` to `load` (a ``ChildLoadRequest``, also in the
///    child's environment: it loads as soon as it is connected); the child's ``ChildPluginSteps``
///    discover and open the file with the load pipeline's own steps and answer a
///    ``ChildPluginDescription`` or a ``ChildRefusal``. The host maps the contract libraries it lacks
///    (``ContractLibraries``) and makes its metadata from the keys the child named.
/// 2. **register**: the pipeline plans it like any plugin; its module, ``RemotePluginModule``, adds
///    a slot per key it provides, each handing out a proxy of the service in the child.
/// 3. **start**: the module's start asks the child to register and start the plugin there; from
///    now on the child's calls to the host reach ``PluginProcessServices`` (its requirements, its
///    settings, the host's log), and the host's calls reach the child's ``ChildServices``.
/// 4. **supervision** (`PluginProcess+Supervision.swift`): a heartbeat; when the child ends, a
///    restart after a pause, or past the restarts allowed a withdrawal, which the host is told of
///    through ``PluginProcessOwner`` (it withdraws the plugin with the reload's code, `Reload/`).
/// 5. **stop**: the module's shutdown lets the calls in flight finish, runs the plugin's shutdown hook
///    in the child, and ends it.
struct OwnProcessLauncher: OwnProcessPlacement {
    /// Which plugins run in a process of their own, and how.
    let settings: PluginProcesses
    /// The operator's settings file, whose `placement` (read again as each load begins) changes
    /// where ``settings`` places a file; nil: as ``settings`` places it.
    let placementFile: PluginSettingsFile?
    /// Where the host's folders of copies go (``PluginDiscovery/shadowFolder``; nil: `TMPDIR` or
    /// `/tmp`): each child's private folder is made there too.
    let shadowFolder: String?
    /// The host's zygote, which forks the children if ``PluginProcesses/zygote`` is on.
    let zygote: PluginZygote
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
        settings.placesOwnProcess(candidate, placements: placementFile?.placements ?? [:])
    }

    func launch(_ candidate: PluginCandidate, startTimeout: Duration, fileCheck: FileCheck?) -> Result<LoadedPlugin, PluginLoadError> {
        PluginProcess.launch(candidate, by: self, startTimeout: startTimeout, fileCheck: fileCheck)
    }
}
