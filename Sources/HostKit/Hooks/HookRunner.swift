import Dispatch
internal import DynamicLoading

/// Runs a plugin's `async` hook from synchronous host code, bounded by a timeout.
enum HookRunner {
    /// Runs `hook` in a task on a thread of its own and waits for it on this thread, at most
    /// `timeout`, and only while `stop` says false (asked every 10 ms). A hook still running then is
    /// cancelled and abandoned with its thread (a thread cannot be killed); the caller goes on.
    /// Blocks the calling thread meanwhile.
    static func run(name: String, timeout: Duration, stop: () -> Bool = { false },
                    _ hook: @escaping @Sendable () async throws -> Void) -> HookOutcome {
        let done = DispatchSemaphore(value: 0)
        let result = Lock<HookOutcome?>(nil)
        let executor = ThreadExecutor(name: name)
        let task = Task(executorPreference: executor) {
            defer { executor.finish() }
            let ended: HookOutcome
            do {
                try await hook()
                ended = .finished
            } catch {
                ended = .failed(String(describing: error))
            }
            result.withLock { $0 = ended }
            done.signal()
        }
        let (seconds, attoseconds) = timeout.components
        // Clamped to a year: beyond that, a timeout means "wait", and the product must not overflow.
        let nanoseconds = Int(min(max(seconds, 0), 31_536_000)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        let deadline = DispatchTime.now() + .nanoseconds(nanoseconds)
        while done.wait(timeout: min(deadline, .now() + .milliseconds(10))) != .success {
            if DispatchTime.now() >= deadline {
                task.cancel()
                return .timedOut(timeout)
            }
            if stop() {
                task.cancel()
                return .stopped
            }
        }
        return result.withLock { $0 } ?? .finished
    }
}
