internal import DynamicLoading
import Foundation
@_spi(HostKit) import PluginAPI

/// Loads plugins into a `ServiceLocator` and keeps the current, read-only locator.
///
/// ```swift
/// let host = PluginHost()
/// let report = host.load([.directory("/usr/lib/myapp/plugins")])
/// for problem in report.problems { print(problem) }
/// let greeter = try host.locator.tryService(key: Keys.greeter)
/// ```
///
/// Each ``load(_:probe:)`` works on a clone of the current locator and swaps it in when done, so
/// readers of ``locator`` never see a half-loaded set, and plugins loaded before stay as they were.
///
/// Plugins never hold a `ServiceLocator` of the host: their registrars and start hooks lend them
/// a `ServiceResolver`, which gets services and changes none, and which reads the host's current
/// services (those registered so far while their load runs, the published ones after it).
///
/// Lifecycle: once a load's plugins are registered and the locator is read-only, each plugin's
/// `Module.start(services:)` runs, in dependency order; ``shutdown(timeout:)`` (or
/// ``ShutdownSignals``) runs their `Module.shutdown()` hooks in reverse order.
public final class PluginHost: Sendable {
    /// What loads, reloads and shutdowns change.
    struct State {
        /// Plugins whose start hook succeeded, in start order.
        var started: [StartedPlugin] = []
        /// The plugins whose slots the current locator (`currentSource`'s) holds, in registration order: what a probe registers
        /// before a plugin of a later load that requires their keys.
        var published: [LoadedPlugin] = []
        /// The settings lent to each plugin of `published`, by name: a reload that finds a value one
        /// read changed registers and starts that plugin again.
        var settings: [String: PluginSettings] = [:]
        /// Every source a load was given, each once, in order: what a reload scans again.
        var sources: [PluginSource] = []
        /// Set by a shutdown, cleared by a load: a reload then does nothing (it would start plugins
        /// that no shutdown stops, in a program on its way out).
        var isShutDown = false
    }

    let state: Lock<State>
    /// The current locator (``locator``), written under `state`'s lock as a load is published, read
    /// without it: what every load's resolvers read once the load is published.
    let currentSource: ServiceSource
    /// Held for a whole load or reload, so two cannot each clone the same locator and lose one's
    /// plugins. Readers of ``locator`` never wait for it.
    let loading = Lock(())
    /// Shutdowns asked for and not done yet: a load that runs meanwhile starts no more plugins, and
    /// cancels the start hook it waits for, so that the shutdown comes soon.
    let shutdownsPending = Lock(0)
    /// How plugin files are found and which are trusted.
    public let discovery: PluginDiscovery
    /// How long one plugin's start hook may take before it counts as failed.
    public let startTimeout: Duration
    /// Which plugins run in a process of their own, and how; nil: every plugin runs in this process.
    public let processes: PluginProcesses?
    /// Where the lines of each plugin's own log (`PluginLog`) go, and at which level each plugin
    /// writes (``PluginLogs``); nil: a plugin's log writes nowhere.
    public let logs: (any PluginLogHandler)?
    /// What counts each plugin's slots, hooks, reloads and restarts (``PluginMetrics``); nil: nothing.
    public let metrics: (any PluginMetrics)?
    /// Where each plugin's own settings (`PluginSettings`) come from: the operator's configuration
    /// (``PluginSettingsFile``, say), read again as each load and reload begins; nil: none is set.
    public let settings: (any PluginSettingsSource)?
    /// Where what happens to plugins' processes after their load is told (a crash and its restart,
    /// a withdrawal), one escaped line each.
    let processReport: @Sendable (String) -> Void
    /// The zygote the processes of ``processes`` are forked from (``PluginProcesses/zygote``).
    let zygote = PluginZygote()

    /// A host whose locator starts empty. With `processes`, the plugin files it names run each in a
    /// process of its own; what happens to those processes later (a crash, a restart, a withdrawal,
    /// and the plugins the host withdraws with it, as a reload report's lines) is told to
    /// `processReport`, one escaped line each (by default to standard error). Each plugin's own log
    /// writes to `logs` (``PluginLogs``), none: nowhere. `metrics` counts each plugin's slots,
    /// hooks, reloads and restarts (``PluginMetrics``); none: nothing is counted. Each plugin reads
    /// its own settings from `settings` (``PluginSettingsFile``), none: nothing is set.
    public convenience init(discovery: PluginDiscovery = PluginDiscovery(), startTimeout: Duration = .seconds(30),
                            processes: PluginProcesses? = nil, logs: (any PluginLogHandler)? = nil,
                            metrics: (any PluginMetrics)? = nil, settings: (any PluginSettingsSource)? = nil,
                            processReport: @escaping @Sendable (String) -> Void = PluginHost.reportToStandardError) {
        self.init(start: ServiceLocator(metrics: metrics), discovery: discovery, startTimeout: startTimeout,
                  processes: processes, logs: logs, metrics: metrics, settings: settings, processReport: processReport)
    }

    /// A host whose locator starts as a clone of `base`, which holds services of the host itself
    /// (configuration, say) for plugins to use. Throws `ServiceLocatorError.cloneDenied` if `base`
    /// refuses to be cloned.
    public convenience init(base: ServiceLocator, discovery: PluginDiscovery = PluginDiscovery(),
                            startTimeout: Duration = .seconds(30), processes: PluginProcesses? = nil,
                            logs: (any PluginLogHandler)? = nil, metrics: (any PluginMetrics)? = nil,
                            settings: (any PluginSettingsSource)? = nil,
                            processReport: @escaping @Sendable (String) -> Void = PluginHost.reportToStandardError) throws {
        let start = metrics == nil ? try base.clone() : try base.clone(countingWith: metrics)
        self.init(start: start, discovery: discovery, startTimeout: startTimeout, processes: processes,
                  logs: logs, metrics: metrics, settings: settings, processReport: processReport)
    }

    private init(start: ServiceLocator, discovery: PluginDiscovery, startTimeout: Duration, processes: PluginProcesses?,
                 logs: (any PluginLogHandler)?, metrics: (any PluginMetrics)?, settings: (any PluginSettingsSource)?,
                 processReport: @escaping @Sendable (String) -> Void) {
        self.processes = processes
        self.logs = logs
        self.metrics = metrics
        self.settings = settings
        self.processReport = processReport
        // The host's locators never deny cloning: each load works on a clone of the current one.
        start.setReadOnly(denyClone: false)
        state = Lock(State())
        currentSource = ServiceSource(start)
        self.discovery = discovery
        self.startTimeout = startTimeout
        // Ready, most likely, by the time the first load needs a child.
        if let processes, processes.zygote { zygote.start(processes, report: processReport) }
    }

    /// The current locator: read-only, with the services of every plugin loaded so far.
    public var locator: ServiceLocator { currentSource.current }

    /// Finds, opens, orders and registers the plugins in `sources`, then publishes the new locator.
    /// Good plugins load even when others fail; the report says what happened to each file.
    ///
    /// With a `probe`, each file is first loaded in a child process, and a plugin that requires keys is
    /// registered there after their providers, in this load's order; one that crashes, hangs or exits
    /// there is reported (``PluginLoadError/probeFailed(path:reason:)``) and never loaded into this
    /// process, nor are the plugins that require it. Start hooks are not probed.
    ///
    /// Once registered, the plugins start (`Module.start(services:)`) in dependency order, before the
    /// new locator is published. A plugin whose start throws or outlasts ``startTimeout`` is reported
    /// (``PluginLoadError/startFailed(plugin:reason:)``), as are the plugins that require its keys,
    /// and the published locator holds none of their slots. Each hook runs on a thread of its own;
    /// this call blocks its thread until they are done.
    @discardableResult
    public func load(_ sources: [PluginSource], probe: PluginProbe? = nil) -> LoadReport {
        load(sources, probe: probe, start: true)
    }

    /// ``load(_:probe:)``, with a choice: with `start` false, the plugins are found, opened, checked
    /// and registered, and the new locator is published, but no `Module.start(services:)` runs, so
    /// loading has no effect a plugin's hooks would have (a file written, a port taken). Those
    /// plugins are not in ``startedPlugins``, and ``shutdown(timeout:)`` runs no hook of theirs. For
    /// a look at what would load (a listing, a check), not for serving: a service whose plugin
    /// prepares it in `start` may not work.
    @discardableResult
    public func load(_ sources: [PluginSource], probe: PluginProbe? = nil, start: Bool) -> LoadReport {
        loading.withLock { loadSerially(sources, probe: probe, start: start) }
    }

    /// This host's pipeline for one load (``LoadPipeline``): its discovery, `probe`, and its start
    /// hooks bounded by ``startTimeout`` (none with `start` false) and given up when a shutdown is asked for.
    func makePipeline(probe: PluginProbe?, start: Bool = true) -> LoadPipeline {
        let pending = shutdownsPending
        var hooks = PluginStart(timeout: startTimeout) { pending.withLock { $0 > 0 } }
        hooks.metrics = metrics
        let ownProcess = processes.map {
            OwnProcessLauncher(settings: $0, placementFile: settings as? PluginSettingsFile, shadowFolder: discovery.shadowFolder,
                               zygote: zygote, logs: logs, metrics: metrics, report: processReport, owner: self)
        }
        return LoadPipeline(discovery: discovery, probe: probe, start: start ? hooks : nil, ownProcess: ownProcess, logs: logs,
                            settings: settings)
    }

    /// A whole ``LoadPipeline`` run for `sources`, then the swap.
    private func loadSerially(_ sources: [PluginSource], probe: PluginProbe?, start: Bool) -> LoadReport {
        let published = state.withLock { state in
            for source in sources where !state.sources.contains(source) { state.sources.append(source) }
            state.isShutDown = false
            return state.published
        }
        let pipeline = makePipeline(probe: probe, start: start)
        defer { pipeline.finish() }
        let (candidates, problems) = pipeline.discover(sources)
        let opened = pipeline.open(candidates)
        let staged = pipeline.stage(opened.plugins, onto: locator, after: published,
                                    registeredInProbe: opened.registeredInProbe, as: .planned)
        if case let .success(publication) = staged.result { publish(publication) }
        let outcome = opened.outcome.merging(staged.outcome) { _, staged in staged }
        var report = LoadReport()
        report.entries = candidates.compactMap { outcome[$0.realPath] }
            + problems.map { LoadReport.Entry(path: $0.subject, metadata: nil, error: $0) }
        return report
    }

    /// Publishes what a stage staged: ``locator`` returns it from now on, and every resolver this
    /// host lent reads it; the stage's source follows the host's from now on. The plugins of
    /// `replacing` (a reload's old versions) leave the bookkeeping under the same lock. Returns the
    /// locator replaced, and the started plugins of `replacing`, in start order: to be stopped.
    @discardableResult
    func publish(_ publication: LoadPipeline.Publication,
                 replacing names: Set<String> = []) -> (replaced: ServiceLocator, retiring: [StartedPlugin]) {
        state.withLock { state in
            let replaced = currentSource.current
            currentSource.serve(publication.locator)
            publication.source.follow(currentSource)
            state.published.removeAll { names.contains($0.metadata.name) }
            state.published += publication.registered
            for name in names { state.settings[name] = nil }
            state.settings.merge(publication.settings) { _, new in new }
            let retiring = state.started.filter { names.contains($0.name) }
            state.started.removeAll { names.contains($0.name) }
            state.started += publication.started
            return (replaced, retiring)
        }
    }

    /// Writes `line` and a newline to standard error: where a host tells what happens to plugins'
    /// processes unless it is given another place.
    public static let reportToStandardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// The plugins started and not shut down yet, in start order.
    public var startedPlugins: [String] { state.withLock { $0.started.map(\.name) } }

    /// Calls the shutdown hook of every started plugin, in reverse start order, then closes that
    /// plugin's existing services that are `ClosableService`s. Each hook and each close is bounded
    /// by `timeout`: one that throws or hangs is reported, and the others still run. A load in
    /// progress starts no more plugins (the start hook it waits for is cancelled, the plugins not
    /// started yet are reported as not started) and is waited for, so every plugin whose start
    /// returned gets its shutdown. The plugins' services stay in ``locator``; a later
    /// ``load(_:probe:)`` starts the plugins it loads. Blocks the calling thread while hooks run.
    @discardableResult
    public func shutdown(timeout: Duration = .seconds(5)) -> ShutdownReport {
        shutdownsPending.withLock { $0 += 1 }
        defer { shutdownsPending.withLock { $0 -= 1 } }
        return loading.withLock {
            let (stopping, locator) = state.withLock { state in
                defer { state.started = [] }
                state.isShutDown = true
                return (state.started, currentSource.current)
            }
            let report = PluginStop.run(stopping, in: locator, timeout: timeout)
            // It ends after its last child; a later load starts another.
            zygote.close()
            metrics?.record(report)
            return report
        }
    }

    /// Reads the header, the library versions and the metadata of one plugin file, registering
    /// nothing, and says whether the host would load it. A plugin built against library versions the
    /// process cannot serve is still shown, with the refusal, when its descriptor can be read safely.
    /// With a `probe`, the file is first opened in a child process: one that crashes, hangs or exits
    /// there is reported and never opened in this process.
    public static func inspect(_ path: String, discovery: PluginDiscovery = PluginDiscovery(),
                               probe: PluginProbe? = nil) -> PluginInspection {
        let pipeline = LoadPipeline(discovery: discovery, probe: probe)
        defer { pipeline.finish() }
        return pipeline.inspect(file: path)
    }
}
