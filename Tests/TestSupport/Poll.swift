import Foundation
// Every test that polls through TestSupport bounds its waits with PollBound.
@_exported import TestBounds

/// Checks `condition` every `interval` until it holds or the ``PollBound`` of `limit` is passed;
/// returns whether it became true.
public func poll(atMost limit: Duration, every interval: Duration = .milliseconds(20),
                 until condition: () -> Bool) async throws -> Bool {
    var bound = PollBound(limit, every: interval)
    while !condition() {
        guard !bound.passed() else { return false }
        try await Task.sleep(for: interval)
    }
    return true
}

/// Runs `body` on a thread of its own and awaits its result: blocking work (a plugin load that waits
/// for probe children) that would otherwise hold a thread of the small pool async tests run on.
public func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Work started on a thread of its own at once (not when a task of the busy cooperative pool gets to
/// it), whose result a test awaits later.
public final class StartedThread<T: Sendable>: @unchecked Sendable {
    // @unchecked: `result` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var result: T?

    public init(_ body: @escaping @Sendable () -> T) {
        Thread { [self] in
            let value = body()
            condition.withLock {
                result = value
                condition.broadcast()
            }
        }.start()
    }

    /// The result, once the work is done.
    public var value: T {
        get async {
            await onAThreadOfItsOwn { [self] in
                condition.withLock {
                    while true {
                        if let result { return result }
                        condition.wait()
                    }
                }
            }
        }
    }

    /// The result, once the work is done; nil if it is not done within `limit`, a hang bound (the
    /// work goes on).
    public func value(within limit: Duration) async -> T? {
        await onAThreadOfItsOwn { [self] in
            let deadline = Date(timeIntervalSinceNow: seconds(of: limit))
            return condition.withLock {
                while result == nil, condition.wait(until: deadline) {}
                return result
            }
        }
    }
}

/// Whether a task of Swift concurrency's pool (one thread per core) runs while some work holds on:
/// for a test that shows the work holds none of the pool's threads. Asked from a thread of its own,
/// so that a pool the work holds cannot hide it (a task that asked would wait for the pool itself,
/// and find it free only once the work let go): waits until `underWay` says the work holds on, then
/// starts a task on the pool and waits for it to run, then lets the work go (`release`). `limit`
/// bounds each of the two waits, a hang bound only; the work must hold on until it is released, so
/// that a pool it holds fails the test rather than coming free in time. It is released from that
/// thread too: the test's own task, which resumes on the pool, would otherwise wait for it as long
/// as the work holds the pool. Whether the work came under way, and whether the task ran.
public func aPoolTaskRuns(whileHeld underWay: @escaping @Sendable () -> Bool, within limit: Duration,
                          release: @escaping @Sendable () -> Void) async -> (underWay: Bool, ran: Bool) {
    await onAThreadOfItsOwn {
        var bound = PollBound(limit, every: .milliseconds(20))
        var held = underWay()
        while !held, !bound.passed() {
            Thread.sleep(forTimeInterval: 0.02)
            held = underWay()
        }
        let ran = DispatchSemaphore(value: 0)
        Task.detached { ran.signal() }
        let result = (held, ran.wait(timeout: .now() + seconds(of: limit)) == .success)
        release()
        return result
    }
}

/// `duration` in seconds, for the clocks of Foundation and Dispatch.
private func seconds(of duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
