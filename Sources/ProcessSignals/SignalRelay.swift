import Foundation

/// The process's one signal relay, behind ``ProcessSignalSequence`` and HostKit's `ShutdownSignals`
/// and `ReloadSignals`: ``SignalHandler`` writes each caught signal's number into a pipe, and one
/// thread reads the pipe and hands the signal to its watchers, outside the signal handler.
package final class SignalRelay: Sendable {
    package static let shared = SignalRelay()

    /// How a watcher takes its signals.
    package enum Mode: Sendable {
        /// The first signal runs the action, on a thread of its own. The same signal again, once no
        /// watcher is left to take it, gets its former action: for SIGINT and SIGTERM, a second
        /// Ctrl-C ends the process.
        case once
        /// Every signal runs the action, one run at a time, on a thread of its own: the signals that
        /// come while it runs make one more run after it. The signal never gets its former action
        /// while it is watched (the default action of SIGHUP ends the process).
        case repeating
        /// Every signal runs the action on the relay's thread, in the order the signals came; the
        /// action must not block (it hands the signal on, as a stream's `yield` does). The signal
        /// never gets its former action while it is watched.
        case each
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
            SignalHandler.restore(number, previous)
        }
    }

    private let state = Lock(State())

    private init() {
        // Before any handler is installed: the handler writes into this pipe.
        let readEnd = SignalHandler.openPipe()
        let thread = Thread { SignalRelay.relay(from: readEnd) }
        thread.name = "ProcessSignals.SignalRelay"
        thread.start()
    }

    /// Catches `signals` (their handlers installed before it returns) and runs `action` for them as
    /// `mode` says; returns the token that ``stopWatching(_:)`` takes.
    package func watch(_ signals: Set<Int32>, mode: Mode, _ action: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.watchers.append(Watcher(token: state.nextToken, signals: signals, mode: mode, action: action))
            defer { SignalHandler.wake() }
            for number in signals where state.former[number] == nil {
                if let previous = SignalHandler.install(number) { state.former[number] = previous }
            }
            return state.nextToken
        }
    }

    /// Forgets the watcher of `token` (nothing if it is gone already); a signal no other watcher
    /// watches gets its former action back. An action that runs finishes its run, and a repeating
    /// one runs no more.
    package func stopWatching(_ token: Int) {
        state.withLock { state in
            state.watchers.removeAll { $0.token == token }
            for number in Array(state.former.keys)
            where !state.watchers.contains(where: { $0.signals.contains(number) }) {
                state.restore(number)
            }
        }
    }

    /// The watched signals, unblocked in the calling thread (the relay's): threads of Swift's
    /// cooperative pool block every signal, and a thread started from one inherits that. A signal
    /// sent to the process is then delivered here at least.
    private func unblockWatchedSignals() {
        SignalHandler.unblock(state.withLock { Array($0.former.keys) })
    }

    private static func relay(from readEnd: Int32) {
        while let byte = SignalHandler.nextByte(from: readEnd) {
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
            var taken = false
            for index in state.watchers.indices where state.watchers[index].signals.contains(number) {
                switch state.watchers[index].mode {
                case .each:
                    due.append(state.watchers[index])
                    taken = true
                case .once, .repeating:
                    if !state.watchers[index].busy {
                        state.watchers[index].busy = true
                        due.append(state.watchers[index])
                        taken = true
                    } else if state.watchers[index].mode == .repeating {
                        // However many come during a run, they make one more run after it.
                        state.watchers[index].pending = number
                        taken = true
                    }
                }
            }
            if !taken {
                // Everyone watching it is busy or done: the signal gets its former action again.
                state.restore(number)
                SignalHandler.raise(number)
            }
            return due
        }
        // `each` here, in order. The others each on a thread of its own: an action that waits (a
        // shutdown for a load stuck in a plugin, a reload for the readers of an old version) must
        // not keep this thread from the next signal.
        for watcher in due {
            if watcher.mode == .each {
                watcher.action(number)
                continue
            }
            let thread = Thread { [self] in run(watcher, for: number) }
            thread.name = "ProcessSignals.SignalRelay.action"
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
