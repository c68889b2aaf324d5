import Foundation
import Synchronization
import TestBounds
import Testing

/// The waits of these tests end a hang, and time in which they did not get to check does not end
/// them. Timed by a clock of the test's own: a starved pool (the whole suite beside two builds)
/// cannot move it.
@Suite struct BoundingTests {
    /// A wait whose check was held past its whole bound (as a pool starved by tests that block its
    /// threads holds it) still checks again: a condition that came true meanwhile is seen. With a
    /// wall-clock deadline the wait gave up after its second check.
    @Test func aWaitHeldPastItsBoundStillSeesItsConditionComeTrue() async {
        let clock = TestClock(), checks = Counter()
        let held = await eventually(seconds: 1, now: clock.now) {
            checks.increment()
            if checks.value == 1 { clock.advance(by: .milliseconds(1_500)) }
            return checks.value >= 3
        }
        #expect(held)
        #expect(checks.value == 3)
    }

    /// A bound is passed once its time is gone *and* it was checked as often as checks every
    /// `interval` would have checked it: one check after a long stall is not enough; checks alone,
    /// before the time is gone, are not enough either; ten times the time is, whatever the checks.
    @Test func aBoundNeedsItsTimeAndItsChecksOrTenTimesItsTime() {
        let clock = TestClock()
        var bound = PollBound(.seconds(1), every: .milliseconds(250), now: clock.now)
        clock.advance(by: .milliseconds(1_100))
        let firstThree = (0..<3).map { _ in bound.passed() }
        #expect(firstThree == [false, false, false])
        let fourth = bound.passed()
        #expect(fourth)

        var early = PollBound(.seconds(60), every: .milliseconds(20), now: clock.now)
        var passedEarly = false
        for _ in 0..<5_000 where early.passed() { passedEarly = true }
        #expect(!passedEarly, "checks alone do not pass a bound whose time is not gone")

        var slow = PollBound(.seconds(1), every: .milliseconds(1), now: clock.now)
        clock.advance(by: .seconds(10))
        let afterTenTimes = slow.passed()
        #expect(afterTenTimes, "ten times its time passes a bound whatever the checks")
    }
}

/// A clock that moves only when told to.
final class TestClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    var now: @Sendable () -> ContinuousClock.Instant { { self.instant.withLock { $0 } } }

    func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }
}
