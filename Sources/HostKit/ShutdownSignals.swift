import Dispatch
import Glibc

/// Shuts a host down when the process gets SIGINT or SIGTERM (or the signals you name).
///
/// ```swift
/// let signals = ShutdownSignals(host: host) { report, signal in
///     print(report.text)
///     exit(0)
/// }
/// dispatchMain()
/// ```
///
/// The signals are taken over (their default action, ending the process at once, is switched off)
/// for as long as this object lives; the host's ``PluginHost/shutdown(timeout:)`` then runs on a
/// queue of its own, and `then` is told what it reported. Keep the object alive.
public final class ShutdownSignals: @unchecked Sendable {
    // @unchecked: the sources are only created here and cancelled in deinit.
    private let sources: [any DispatchSourceSignal]
    private let signals: [Int32]

    /// Watches `signals`; on the first one, shuts `host` down with `timeout` per hook, then calls `then`.
    public init(host: PluginHost, signals: [Int32] = [SIGINT, SIGTERM], timeout: Duration = .seconds(5),
                then: @escaping @Sendable (ShutdownReport, Int32) -> Void) {
        let queue = DispatchQueue(label: "HostKit.ShutdownSignals")
        self.signals = signals
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                then(host.shutdown(timeout: timeout), number)
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }
}
