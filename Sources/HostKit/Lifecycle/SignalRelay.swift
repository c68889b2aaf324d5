internal import DynamicLoading
import Foundation
import Glibc

/// The process-wide part of ``ShutdownSignals`` and ``ReloadSignals``: `sigaction` handlers that
/// write the signal's number into a pipe, and one thread that reads the pipe and runs the watchers
/// outside the signal handler.
final class SignalRelay: Sendable {
    static let shared = SignalRelay()

    /// How a watcher takes its signals.
    enum Mode {
        /// The first signal runs the action. The same signal again, once no watcher is left to take
        /// it, gets its former action: for SIGINT and SIGTERM, a second Ctrl-C ends the process.
        case once
        /// Every signal runs the action, one run at a time: the signals that come while it runs make
        /// one more run after it. The signal never gets its former action while it is watched (the
        /// default action of SIGHUP ends the process).
        case repeating
    }

    private struct Watcher {
        let token: Int
        let signals: Set<Int32>
        let mode: Mode
        let action: @Sendable (Int32) -> Void
        /// `once`: its signal came. `repeating`: its action runs now.
        var busy = false
        /// `repeating`: the last signal that came while the action ran, for one more run after it.
        var pending: Int32?
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
        thread.name = "HostKit.SignalRelay"
        thread.start()
    }

    /// Catches `signals` (their handlers installed before it returns) and runs `action` for them as
    /// `mode` says; returns the token that ``stopWatching(_:)`` takes.
    func watch(_ signals: Set<Int32>, mode: Mode, _ action: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.watchers.append(Watcher(token: state.nextToken, signals: signals, mode: mode, action: action))
            defer { wakeRelay() }
            for number in signals where state.former[number] == nil {
                if let previous = try? Posix.handle(number, with: relaySignal) { state.former[number] = previous }
            }
            return state.nextToken
        }
    }

    /// Forgets the watcher of `token`; a signal no other watcher watches gets its former action back.
    /// An action that runs finishes its run, and a repeating one runs no more.
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
        let due: [Watcher] = state.withLock { state in
            var due: [Watcher] = []
            var coalesced = false
            for index in state.watchers.indices where state.watchers[index].signals.contains(number) {
                if !state.watchers[index].busy {
                    state.watchers[index].busy = true
                    due.append(state.watchers[index])
                } else if state.watchers[index].mode == .repeating {
                    // However many come during a run, they make one more run after it.
                    state.watchers[index].pending = number
                    coalesced = true
                }
            }
            if due.isEmpty && !coalesced {
                // Everyone watching it is busy or done: the signal gets its former action again.
                state.restore(number)
                Posix.raise(number)
            }
            return due
        }
        // Each on a thread of its own: an action that waits (a shutdown for a load stuck in a plugin,
        // a reload for the readers of an old version) must not keep this thread from the next signal.
        for watcher in due {
            let thread = Thread { [self] in run(watcher, for: number) }
            thread.name = "HostKit.SignalRelay.action"
            thread.start()
        }
    }

    /// Runs `watcher`'s action for `number`; a repeating watcher's again while signals came meanwhile.
    private func run(_ watcher: Watcher, for number: Int32) {
        var next: Int32? = number
        while let number = next {
            watcher.action(number)
            next = watcher.mode == .repeating ? nextRun(of: watcher.token) : nil
        }
    }

    /// The signal that came while the repeating watcher of `token` ran, if one did; else the watcher
    /// is idle again (and nil if it stopped watching).
    private func nextRun(of token: Int) -> Int32? {
        state.withLock { state in
            guard let index = state.watchers.firstIndex(where: { $0.token == token }) else { return nil }
            defer { state.watchers[index].pending = nil }
            if state.watchers[index].pending == nil { state.watchers[index].busy = false }
            return state.watchers[index].pending
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
