import Foundation
import TestBounds
import Testing

/// The waits of these tests end a hang, and time in which they did not get to check does not end them.
@Suite struct BoundingTests {
    /// A wait whose check was held past its whole bound (as a pool starved by tests that block its
    /// threads holds it) still checks again: a condition that came true meanwhile is seen. With a
    /// wall-clock deadline the wait gave up after its second check.
    @Test func aWaitHeldPastItsBoundStillSeesItsConditionComeTrue() async {
        let checks = Counter()
        let held = await eventually(seconds: 1) {
            checks.increment()
            if checks.value == 1 { Thread.sleep(forTimeInterval: 1.5) }
            return checks.value >= 3
        }
        #expect(held)
        #expect(checks.value == 3)
    }

    /// A bound is passed once its time is gone *and* it was checked as often as checks every
    /// `interval` would have checked it: one check after a long stall is not enough.
    @Test func aBoundNeedsItsTimeAndItsChecks() {
        var bound = PollBound(.seconds(1), every: .milliseconds(250))
        Thread.sleep(forTimeInterval: 1.1)
        let firstThree = (0..<3).map { _ in bound.passed() }
        #expect(firstThree == [false, false, false])
        let fourth = bound.passed()
        #expect(fourth)

        var fresh = PollBound(.seconds(60), every: .milliseconds(20))
        var passedEarly = false
        for _ in 0..<5_000 where fresh.passed() { passedEarly = true }
        #expect(!passedEarly, "checks alone do not pass a bound whose time is not gone")
    }
}
