import Foundation
import HostKit
import Logging
import PluginHostLogging
import ProcessSignals
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Runs a ``PluginHost`` as a service of a `ServiceGroup`: when the group runs, it loads and starts
/// the plugins (a bad plugin is logged and skipped); on graceful shutdown (SIGTERM or SIGINT through
/// the group) it shuts them down in reverse start order, each hook bounded by `shutdownTimeout`, and
/// logs the report.
///
/// ```swift
/// let host = PluginHost()
/// let plugins = PluginHostService(host: host, sources: [.directory("/usr/lib/myapp/plugins")], logger: logger)
/// let group = ServiceGroup(configuration: .init(services: [.init(service: plugins), .init(service: server)],
///                                               gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// Another service that needs the plugins' services waits for ``loaded()`` first.
///
/// While it runs, each of `reloadSignals` (SIGHUP unless told otherwise) reloads the plugins, as
/// ``reload()`` does: new files are added, a file renamed over a plugin's upgrades it, a plugin whose
/// file is gone is withdrawn (``PluginHost/reload(probe:drainTimeout:hookTimeout:)``). `onReload`
/// hears every reload's report, so that a server can take up what changed.
public struct PluginHostService: Service {
    /// The host whose plugins this service loads and shuts down.
    public let host: PluginHost
    private let sources: [PluginSource]
    private let probe: PluginProbe?
    private let shutdownTimeout: Duration
    private let reloadSignals: [UnixSignal]
    private let logger: Logger
    private let onReload: @Sendable (ReloadReport) async -> Void
    private let report: LoadSignal

    /// A service that loads `sources` into `host` (first in child processes, with a `probe`) and
    /// logs to `logger`. While it runs, each of `reloadSignals` (none if empty) reloads the plugins;
    /// `onReload` is called with the report of every reload, whether a signal or ``reload()`` asked
    /// for it, once the report is logged.
    public init(host: PluginHost, sources: [PluginSource], probe: PluginProbe? = nil,
                shutdownTimeout: Duration = .seconds(5), reloadSignals: [UnixSignal] = [.sighup], logger: Logger,
                onReload: @escaping @Sendable (ReloadReport) async -> Void = { _ in }) {
        self.host = host
        self.sources = sources
        self.probe = probe
        self.shutdownTimeout = shutdownTimeout
        self.reloadSignals = reloadSignals
        self.logger = logger
        self.onReload = onReload
        report = LoadSignal()
    }

    /// Waits until the plugins are loaded and started, and returns the load report.
    public func loaded() async -> LoadReport {
        await report.wait()
    }

    /// Scans the sources again and brings the running plugins up to date
    /// (``PluginHost/reload(probe:drainTimeout:hookTimeout:)``, with this service's probe), logs the
    /// report, calls `onReload` with it and returns it. Returns once the versions replaced have
    /// stopped. A reload while another runs waits for it.
    @discardableResult
    public func reload() async -> ReloadReport {
        let host = host, probe = probe
        // `reload` blocks its thread while hooks run and readers drain: not one of the concurrency pool's.
        let reloadReport = await onAThreadOfItsOwn { host.reload(probe: probe) }
        logger.log(reloadReport)
        await onReload(reloadReport)
        return reloadReport
    }

    /// Loads and starts the plugins, reloads them on each of `reloadSignals` until the group shuts
    /// down gracefully, then shuts them down. The signals are trapped before the load begins: one
    /// that comes once ``loaded()`` has returned is never missed.
    public func run() async throws {
        let host = host, sources = sources, probe = probe
        // The root package's relay, which HostKit's own signal watchers share: one handler per signal.
        let signals = reloadSignals.isEmpty ? nil : ProcessSignalSequence(trapping: reloadSignals.map(\.rawValue))
        // `load` and `shutdown` block their thread while hooks run: not one of the concurrency pool's.
        let loadReport = await onAThreadOfItsOwn { host.load(sources, probe: probe) }
        logger.log(loadReport)
        logger.info("plugins started", metadata: ["plugins": "\(host.startedPlugins.joined(separator: ","))"])
        report.fulfil(loadReport)
        // Until the group shuts down gracefully; a cancelled group shuts the plugins down too.
        if let signals {
            for await _ in signals.cancelOnGracefulShutdown() {
                await reload()
            }
        } else {
            try? await gracefulShutdown()
        }
        let timeout = shutdownTimeout
        let shutdownReport = await onAThreadOfItsOwn { host.shutdown(timeout: timeout) }
        logger.log(shutdownReport)
    }
}

/// The load report, once there is one, for the tasks waiting for it.
private final class LoadSignal: Sendable {
    private struct State {
        var report: LoadReport?
        var waiting: [CheckedContinuation<LoadReport, Never>] = []
    }

    private let state = Mutex(State())

    func fulfil(_ report: LoadReport) {
        let waiting = state.withLock { state in
            state.report = report
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume(returning: report) }
    }

    func wait() async -> LoadReport {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.report == nil { state.waiting.append(continuation) }
                return state.report
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// Runs `body` on a new thread and resumes with its result.
func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
