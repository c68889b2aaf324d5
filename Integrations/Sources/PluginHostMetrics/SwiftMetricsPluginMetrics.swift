import CoreMetrics
import HostKit
import PluginAPI

/// A host's ``HostKit/PluginMetrics`` recorded into swift-metrics, through the backend the process
/// bootstrapped (`MetricsSystem.bootstrap`) or the factory given: a Prometheus registry, say.
///
/// | metric | kind | dimensions |
/// |---|---|---|
/// | `plugin_service_gets_total` | counter | `plugin` (the slot's; `host` for the host's own), `key` |
/// | `plugin_service_get_failures_total` | counter | `plugin`, `key` |
/// | `plugin_service_make_duration` | timer | `plugin`, `key` |
/// | `plugin_hook_duration` | timer | `plugin`, `hook` (`start`, `shutdown`, `close`), `outcome` (`finished`, `failed`, `timedOut`, `stopped`) |
/// | `plugin_reloads_total` | counter | `plugin`, `action` (`added`, `upgraded`, `restarted`, `reconfigured`, `withdrawn`, `kept`, `refused`) |
/// | `plugin_process_restarts_total` | counter | `plugin` |
/// | `plugin_process_calls_total` | counter | `plugin`, `method` (its name: `echo`), `outcome` (`answered`, `threw`, `failed`) |
/// | `plugin_process_call_duration` | timer | `plugin`, `method` |
///
/// ```swift
/// let host = PluginHost(metrics: SwiftMetricsPluginMetrics())
/// ```
///
/// A slot's counters are made once, when the slot is added, so a get costs one counter's increment.
public struct SwiftMetricsPluginMetrics: PluginMetrics {
    private let factory: any MetricsFactory

    /// Metrics made by `factory` (the process's bootstrapped backend unless another is given).
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
    }

    public func counters(forKey key: String, origin: String?) -> any ServiceSlotCounters {
        let dimensions = [("plugin", origin ?? "host"), ("key", key)]
        return SlotCounters(gets: Counter(label: "plugin_service_gets_total", dimensions: dimensions, factory: factory),
                            failures: Counter(label: "plugin_service_get_failures_total", dimensions: dimensions, factory: factory),
                            made: Timer(label: "plugin_service_make_duration", dimensions: dimensions, factory: factory))
    }

    public func hookEnded(plugin: String, hook: String, outcome: HookOutcome, duration: Duration) {
        let dimensions = [("plugin", plugin), ("hook", hook), ("outcome", Self.name(of: outcome))]
        Timer(label: "plugin_hook_duration", dimensions: dimensions, factory: factory).record(duration)
    }

    public func reloaded(plugin: String, action: ReloadReport.Action) {
        Counter(label: "plugin_reloads_total", dimensions: [("plugin", plugin), ("action", action.rawValue)], factory: factory)
            .increment()
    }

    public func processRestarted(plugin: String) {
        Counter(label: "plugin_process_restarts_total", dimensions: [("plugin", plugin)], factory: factory).increment()
    }

    public func processCalled(plugin: String, method: String, outcome: String, duration: Duration) {
        Counter(label: "plugin_process_calls_total", dimensions: [("plugin", plugin), ("method", method), ("outcome", outcome)],
                factory: factory).increment()
        Timer(label: "plugin_process_call_duration", dimensions: [("plugin", plugin), ("method", method)], factory: factory)
            .record(duration)
    }

    /// The outcome's name, without what went wrong (a dimension's values must be few).
    private static func name(of outcome: HookOutcome) -> String {
        switch outcome {
        case .finished: "finished"
        case .failed: "failed"
        case .timedOut: "timedOut"
        case .stopped: "stopped"
        }
    }

    /// One slot's counters, made once.
    private struct SlotCounters: ServiceSlotCounters {
        let gets: Counter
        let failures: Counter
        let made: Timer

        func got() { gets.increment() }
        func failed() { failures.increment() }
        func made(in duration: Duration) { made.record(duration) }
    }
}

extension Timer {
    /// Records `duration`, to the nanosecond.
    fileprivate func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
