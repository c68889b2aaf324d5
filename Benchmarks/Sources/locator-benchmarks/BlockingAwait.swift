import Dispatch
import Synchronization

/// Runs `body` in a task of its own and waits for it on this thread: the benchmark's top level is
/// synchronous (as HostKit's `load` wants its caller), the calls it times are `async`.
func blockingAwait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { fail("a task ended without an outcome") }
    return result
}

/// ``blockingAwait(_:)``, failing the run with `what` on an error.
func mustAwait<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) -> T {
    switch blockingAwait(body) {
    case let .success(value): return value
    case let .failure(error): fail("\(what): \(error)")
    }
}
