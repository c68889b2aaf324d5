import Foundation
import Glibc
import ProcessSignals

/// Shuts a host down when the process gets SIGINT or SIGTERM (or the signals you name).
///
/// ```swift
/// let signals = ShutdownSignals(host: host) { report, signal in
///     print(report.text)
///     exit(0)
/// }
/// ```
///
/// From the moment `init` returns, the signals are caught (their handlers are installed with
/// `sigaction` before it returns, so none is lost to a race). The first one runs the host's
/// ``PluginHost/shutdown(timeout:)`` on a thread of its own and tells `then` what it reported. The
/// same signal again while nothing is left to run it (a second Ctrl-C) gets its former action, which
/// for SIGINT and SIGTERM ends the process: also while the first one's shutdown still waits for a
/// load that a plugin keeps from finishing. When the object goes away the former actions come back.
public final class ShutdownSignals: Sendable {
    private let token: Int

    /// Watches `signals`; on the first one, shuts `host` down with `timeout` per hook, then calls `then`.
    public init(host: PluginHost, signals: [Int32] = [SIGINT, SIGTERM], timeout: Duration = .seconds(5),
                then: @escaping @Sendable (ShutdownReport, Int32) -> Void) {
        token = SignalRelay.shared.watch(Set(signals), mode: .once) { number in
            then(host.shutdown(timeout: timeout), number)
        }
    }

    deinit {
        SignalRelay.shared.stopWatching(token)
    }
}
