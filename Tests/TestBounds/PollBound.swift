/// A bound on polling that a stalled cooperative pool cannot use up: passed once `limit` has gone by
/// *and* the condition was checked as often as checks every `interval` for `limit` would check it,
/// or, whatever the checks, once ten times `limit` has gone by (checks that are themselves slow).
///
/// In a whole-suite run the pool (one thread per core) runs hundreds of tests, and a task that slept
/// can wait there tens of seconds before it checks again (45 s measured with a probe task, here, at
/// the start of a run). A wall-clock bound alone then fails a test whose condition came true while it
/// waited; a hang still ends the test.
public struct PollBound: Sendable {
    private let now: @Sendable () -> ContinuousClock.Instant
    private let start: ContinuousClock.Instant
    private let limit: Duration
    private var checksLeft: Int
    private var lastCheck: ContinuousClock.Instant

    /// A bound of `limit` on checks every `interval`, timed by `now` (a test of the bound itself
    /// gives a clock of its own, which no starved pool can move).
    public init(_ limit: Duration, every interval: Duration,
                now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
        self.limit = limit
        checksLeft = max(1, Int(limit / interval))
        start = now()
        lastCheck = start
    }

    /// Counts one check of the condition (that did not hold); true once the bound is passed.
    public mutating func passed() -> Bool {
        checksLeft -= 1
        let now = now()
        // A stall this long is worth a line in the test log: whoever reads a slow run looks for it.
        if now - lastCheck > .seconds(30) {
            print("PollBound: a check came \(Int((now - lastCheck).components.seconds)) s after the one before (a starved pool?)")
        }
        lastCheck = now
        let elapsed = now - start
        return (checksLeft <= 0 && elapsed >= limit) || elapsed >= limit * 10
    }
}
