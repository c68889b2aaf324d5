import Foundation
import Glibc

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
        token = SignalRelay.shared.watch(Set(signals)) { number in
            then(host.shutdown(timeout: timeout), number)
        }
    }

    deinit {
        SignalRelay.shared.stopWatching(token)
    }
}

/// The process-wide part: `sigaction` handlers that write the signal's number into a pipe, and one
/// thread that reads the pipe and runs the watchers outside the signal handler.
private final class SignalRelay: Sendable {
    static let shared = SignalRelay()

    private struct Watcher {
        let token: Int
        let signals: Set<Int32>
        let action: @Sendable (Int32) -> Void
        var fired = false
    }

    private struct State {
        var watchers: [Watcher] = []
        /// The actions the signals had before this relay took them over.
        var former: [Int32: sigaction] = [:]
        var nextToken = 0

        /// Gives `number` its former action back.
        mutating func restore(_ number: Int32) {
            guard let previous = former.removeValue(forKey: number) else { return }
            _ = try? Posix.setAction(number, previous)
        }
    }

    private let state = Lock(State())
    private let readEnd: Int32

    private init() {
        // Close-on-exec: not inherited by child processes (plugin probes).
        let ends = (try? Posix.pipe()) ?? (read: -1, write: -1)
        readEnd = ends.read
        relayWriteEnd = ends.write
        let thread = Thread { [readEnd] in SignalRelay.relay(from: readEnd) }
        thread.name = "HostKit.ShutdownSignals"
        thread.start()
    }

    func watch(_ signals: Set<Int32>, _ action: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.watchers.append(Watcher(token: state.nextToken, signals: signals, action: action))
            defer { wakeRelay() }
            for number in signals where state.former[number] == nil {
                if let previous = try? Posix.handle(number, with: relaySignal) { state.former[number] = previous }
            }
            return state.nextToken
        }
    }

    func stopWatching(_ token: Int) {
        state.withLock { state in
            state.watchers.removeAll { $0.token == token }
            for number in Array(state.former.keys)
            where !state.watchers.contains(where: { $0.signals.contains(number) }) {
                state.restore(number)
            }
        }
    }

    /// Tells the relay thread to unblock the watched signals in itself.
    private func wakeRelay() {
        var zero: UInt8 = 0
        _ = try? Posix.write(relayWriteEnd, from: &zero, count: 1)
    }

    /// The watched signals, unblocked in the calling thread (the relay's): threads of Swift's
    /// cooperative pool block every signal, and a thread started from one inherits that. A signal
    /// sent to the process is then delivered here at least.
    private func unblockWatchedSignals() {
        Posix.unblock(state.withLock { Array($0.former.keys) })
    }

    private static func relay(from readEnd: Int32) {
        var byte: UInt8 = 0
        while readEnd >= 0 {
            let count = withUnsafeMutableBytes(of: &byte) { try? Posix.read(readEnd, into: $0) }
            guard count == 1 else { return }
            if byte == 0 {
                shared.unblockWatchedSignals()
            } else {
                shared.deliver(Int32(byte))
            }
        }
    }

    private func deliver(_ number: Int32) {
        let actions: [@Sendable (Int32) -> Void] = state.withLock { state in
            var due: [@Sendable (Int32) -> Void] = []
            for index in state.watchers.indices
            where state.watchers[index].signals.contains(number) && !state.watchers[index].fired {
                state.watchers[index].fired = true
                due.append(state.watchers[index].action)
            }
            if due.isEmpty {
                // Everyone watching it is busy or done: the signal gets its former action again.
                state.restore(number)
                Posix.raise(number)
            }
            return due
        }
        // Each on a thread of its own: a shutdown that waits (for a load stuck in a plugin) must not
        // keep this thread from the next signal, which then gets its former action and ends the process.
        for action in actions {
            let thread = Thread { action(number) }
            thread.name = "HostKit.ShutdownSignals.action"
            thread.start()
        }
    }
}

/// The write end of the relay's pipe, read by the signal handler (which can use nothing else).
/// `nonisolated(unsafe)`: written once, in `SignalRelay.init`, before any handler that reads it is
/// installed (`watch` needs `SignalRelay.shared`, whose init has returned by then); only read after.
nonisolated(unsafe) private var relayWriteEnd: Int32 = -1

/// The signal handler: async-signal-safe, it only writes one byte, with `write(2)` itself rather than
/// through ``Posix`` (a handler may call async-signal-safe functions only, and must not throw), and
/// leaves `errno` as it found it for the code it interrupted.
private func relaySignal(_ number: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(relayWriteEnd, &byte, 1)
    errno = saved
}
