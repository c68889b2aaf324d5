import Foundation
@_spi(HostKit) import PluginAPI
import Testing

/// A test's `async` work did not finish in time: the code under test hangs.
struct TimedOut: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "timed out after \(seconds) s" }
}

/// Lets exactly one of two racers resume a continuation.
final class FirstWins: @unchecked Sendable {
    // @unchecked: `done` is touched only under `lock`.
    private let lock = NSLock()
    private var done = false

    func claim() -> Bool {
        lock.withLock {
            if done { return false }
            done = true
            return true
        }
    }
}

/// Runs `operation`, or throws ``TimedOut`` after `seconds` if it has not finished by then. The
/// operation runs in a task of its own, so a hung one cannot hold the test: it is cancelled and left.
/// The bound is generous: in the full suite, tests that block threads can keep the two threads of the
/// cooperative pool busy for seconds, and on a loaded 2-core CI machine a wait of 200 ms once took
/// over 20 s (a task waited 45 s for the pool once at the start of a run, and over a minute under
/// ThreadSanitizer beside two CPU-bound jobs: 5 minutes, as `eventually`); a hung operation (the bugs
/// these bounds catch) never ends at all.
func withTimeout<T: Sendable>(seconds: Double = 300, _ operation: @escaping @Sendable () async throws -> T)
    async throws -> T {
    let race = FirstWins()
    return try await withCheckedThrowingContinuation { continuation in
        let work = Task {
            do {
                let value = try await operation()
                if race.claim() { continuation.resume(returning: value) }
            } catch {
                if race.claim() { continuation.resume(throwing: error) }
            }
        }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            if race.claim() {
                work.cancel()
                continuation.resume(throwing: TimedOut(seconds: seconds))
            }
        }
    }
}

/// Checks `condition` every few milliseconds until it holds or `seconds` pass; returns whether it held.
/// The bound only keeps a hang from holding the run: 5 minutes (under ThreadSanitizer beside two
/// CPU-bound jobs, the pool took over a minute to run two tasks once).
func eventually(seconds: Double = 300, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// Expects `body` to throw a ``ServiceLocatorError`` equal to `expected`.
func expectLocatorErrorAsync<T>(_ expected: LocatorFailure, sourceLocation: SourceLocation = #_sourceLocation,
                                        _ body: () async throws -> T) async {
    do {
        _ = try await body()
        Issue.record("expected \(expected), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ServiceLocatorError {
        #expect(error.failure == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

/// Expects `body` to throw a ``ServiceObtainError``; returns it.
func expectObtainErrorAsync<T>(sourceLocation: SourceLocation = #_sourceLocation,
                                       _ body: () async throws -> T) async -> ServiceObtainError? {
    await #expect(throws: ServiceObtainError.self, sourceLocation: sourceLocation) { _ = try await body() }
}
