import Dispatch
internal import DynamicLoading

/// Waits on this thread for an `async` call to another process, from the synchronous steps of a
/// load. The call itself is bounded (its timeout fails it), so the wait is too.
enum BlockingCall {
    /// The result of `body`, run in a task on a thread of its own (as hooks run, ``HookRunner``),
    /// waited for on this thread. Not on Swift concurrency's threads: a caller blocking one of
    /// those (a test, an `async` function calling `PluginHost.load`) would leave the call none.
    static func run<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) -> Result<Value, any Error> {
        let done = DispatchSemaphore(value: 0)
        let result = Lock<Result<Value, any Error>?>(nil)
        let executor = ThreadExecutor(name: "plugin process call")
        Task(executorPreference: executor) {
            defer { executor.finish() }
            let outcome: Result<Value, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .failure(CancellationError())
    }
}
