import Dispatch
import Foundation
import Glibc

extension ChildProcess {
    /// A child as its two threads see it: the reader, which drains its output, and the waiter, which
    /// reaps it and ends the rest (the order is the type's invariants'). The ``ChildProcess`` holds
    /// this; the threads hold this, not it, so that releasing the ``ChildProcess`` can end the child.
    final class Watch: Sendable {
        /// How a reaped child ended, and the CPU time it used (user and system).
        struct End: Sendable {
            let ending: Ending
            let cpuTime: Duration
        }

        /// What changes, under one lock.
        struct State: Sendable {
            /// Set, under the lock, at the reap: from then on the child's id is not ours to signal.
            var reaped = false
            /// Set once the output is drained and closed, before `onEnd` is called.
            var end: End?
            /// The waiter thread, so that a ``waitForEnd()`` from `onEnd` returns at once.
            var waiter: pthread_t?
            /// The callers' closures, let go after their last call (they may hold the ``ChildProcess``).
            var onOutput: (@Sendable (String) -> Void)?
            var onEnd: (@Sendable (Ending) -> Void)?
        }

        let pid: Int32
        let socket: Int32
        /// The parent's end of the child's standard output and error.
        let output: Int32
        let limits: Limits
        /// For a child a ``Zygote`` forked: its pidfd and the zygote's word of its end (the zygote
        /// reaps it). Nil for a child of this process.
        let forked: ForkedChild?
        let state: Lock<State>
        let tail = Lock(OutputTail())
        /// Signalled by the reader once it has read the output to its end.
        private let drained = DispatchSemaphore(value: 0)
        /// Entered at the start, left once the end is complete (``waitForEnd()`` waits for it).
        private let finished = DispatchGroup()

        init(pid: Int32, socket: Int32, output: Int32, limits: Limits, forked: ForkedChild? = nil,
             onOutput: (@Sendable (String) -> Void)?, onEnd: @escaping @Sendable (Ending) -> Void) {
            self.pid = pid
            self.forked = forked
            self.socket = socket
            self.output = output
            self.limits = limits
            self.state = Lock(State(onOutput: onOutput, onEnd: onEnd))
        }

        /// Starts the reader and the waiter.
        func start() {
            finished.enter()
            let reader = Thread { [self] in drainOutput() }
            reader.name = "child \(pid) output"
            reader.start()
            let waiter = Thread { [self] in awaitEnd() }
            waiter.name = "child \(pid) waiter"
            waiter.start()
        }

        /// Signals the child unless it has been reaped (under the lock the reap takes).
        func kill(_ signal: Int32) {
            state.withLock { state in
                guard !state.reaped else { return }
                if let forked { forked.send(signal) } else { Posix.send(signal, to: pid) }
            }
        }

        /// Whether the child has ended, reaped or not (asked under the lock the reap takes, while its
        /// id is still its own).
        var hasEnded: Bool {
            state.withLock { state in state.reaped || (forked?.hasEnded ?? Posix.hasEnded(pid)) }
        }

        /// How it ended, once the end is complete (at once on the waiter thread, from `onEnd`).
        func waitForEnd() -> Ending {
            let onWaiter = state.withLock { state in state.waiter.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
            if !onWaiter { finished.wait() }
            return state.withLock { $0.end?.ending } ?? .exited(-1)
        }

        /// The reader thread: reads the output as it comes until its end, keeps its last lines and
        /// hands each line to `onOutput`.
        private func drainOutput() {
            let onOutput = state.withLock { $0.onOutput }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { (try? Posix.read(output, into: $0)) ?? 0 }
                guard count > 0 else { break }
                let lines = tail.withLock { $0.append(buffer[..<count]) }
                for line in lines { onOutput?(line) }
            }
            if let last = tail.withLock({ $0.finish() }) { onOutput?(last) }
            state.withLock { $0.onOutput = nil }
            drained.signal()
        }

        /// The waiter thread: waits for the child's end, reaps it once, ends the output and the socket
        /// and calls `onEnd`, in the order the type's invariants give.
        private func awaitEnd() {
            state.withLock { $0.waiter = pthread_self() }
            let end = forked.map(awaitZygotesWord) ?? awaitOwnEnd()
            // The reader reads what the child left, then the end, even if a grandchild holds the output.
            Posix.shutDown(output)
            drained.wait()
            Posix.close(output)
            Posix.shutDown(socket)
            let onEnd = state.withLock { state in
                state.end = end
                defer { state.onEnd = nil }
                return state.onEnd
            }
            onEnd?(end.ending)
            Posix.close(socket)
            finished.leave()
        }

        /// Waits for the end of this process's own child, and reaps it.
        private func awaitOwnEnd() -> End {
            // Not reaped yet: the id stays the child's while `kill` may still use it.
            let ended = (try? Posix.awaitEnd(of: pid)) != nil
            let reaped = state.withLock { state in
                state.reaped = true
                return ended ? try? Posix.reap(pid) : nil
            }
            return End(ending: reaped.map { Ending(waitStatus: $0.status) } ?? .exited(-1),
                       cpuTime: reaped.map { Self.cpuTime($0.usage) } ?? .zero)
        }

        /// Waits for the zygote's word that its child ended (or, the zygote gone, for the end
        /// itself), then closes the pidfd, under the lock `kill` takes.
        private func awaitZygotesWord(_ forked: ForkedChild) -> End {
            let word = forked.awaitEnd()
            state.withLock { state in
                state.reaped = true
                forked.close()
            }
            return End(ending: word.map { Ending(waitStatus: $0.status) } ?? .exited(-1), cpuTime: word?.cpuTime ?? .zero)
        }

        /// The user and system CPU time in `usage`.
        private static func cpuTime(_ usage: rusage) -> Duration {
            .seconds(Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec))
                + .microseconds(Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec))
        }
    }
}
