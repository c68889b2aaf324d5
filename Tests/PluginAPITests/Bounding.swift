import Foundation
@_spi(HostKit) import PluginAPI
import TestBounds
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

    /// Whether a racer has claimed it.
    var isClaimed: Bool { lock.withLock { done } }

    func claim() -> Bool {
        lock.withLock {
            if done { return false }
            done = true
            return true
        }
    }
}

/// Runs `operation`, or throws ``TimedOut`` once a ``PollBound`` of `seconds` has passed while it
/// has not finished. The operation runs in a task of its own, so a hung one cannot hold the test: it
/// is cancelled and left. The bound only ends a hang (the bugs these bounds catch never end at all);
/// a pool starved by tests that block its threads (two on a 2-core machine) cannot use it up: a
/// wall-clock bound once failed a test after a stall of five minutes in which neither its work nor
/// its timer ran.
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
            var bound = PollBound(.seconds(seconds), every: .seconds(1))
            while !race.isClaimed, !bound.passed() { try? await Task.sleep(for: .seconds(1)) }
            if race.claim() {
                work.cancel()
                continuation.resume(throwing: TimedOut(seconds: seconds))
            }
        }
    }
}

/// Checks `condition` every few milliseconds until it holds or a ``PollBound`` of `seconds` has
/// passed; returns whether it held. The bound only keeps a hang from holding the run, and a starved
/// pool does not use it up (see ``withTimeout(seconds:_:)``).
/// `now` is the bound's clock (a test of the wait itself gives one of its own).
func eventually(seconds: Double = 300, now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
                _ condition: () -> Bool) async -> Bool {
    var bound = PollBound(.seconds(seconds), every: .milliseconds(10), now: now)
    while !condition() {
        guard !bound.passed() else { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
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
