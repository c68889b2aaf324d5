import Glibc
import ProcessSignals

/// Reloads a host's plugins whenever the process gets SIGHUP (or the signals you name), as Unix
/// daemons reload their configuration.
///
/// ```swift
/// let reloads = ReloadSignals(host: host) { report, signal in
///     print(report.text)
/// }
/// ```
///
/// From the moment `init` returns, the signals are caught (their handlers are installed with
/// `sigaction` before it returns). Every one of them, not only the first, runs the host's
/// ``PluginHost/reload(probe:drainTimeout:hookTimeout:)`` on a thread of its own and tells `then`
/// what it reported. One reload runs at a time: the signals that come while it runs make one more
/// reload after it, so none is lost and a burst does not queue a reload per signal. While the object
/// lives the signals never get their former action (SIGHUP's would end the process); when it goes
/// away the former actions come back. It may live beside a ``ShutdownSignals`` of other signals.
public final class ReloadSignals: Sendable {
    private let token: Int

    /// Watches `signals`; on each, reloads `host` (opening new plugin files through `probe`, if
    /// given, as ``PluginHost/load(_:probe:)`` does), then calls `then` with the report and the signal.
    public init(host: PluginHost, signals: [Int32] = [SIGHUP], probe: PluginProbe? = nil,
                then: @escaping @Sendable (ReloadReport, Int32) -> Void) {
        token = SignalRelay.shared.watch(Set(signals), mode: .repeating) { number in
            then(host.reload(probe: probe), number)
        }
    }

    deinit {
        SignalRelay.shared.stopWatching(token)
    }
}
