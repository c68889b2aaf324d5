import Foundation

/// A call waiting for its answer, which its deadline answers if nothing did before.
protocol TimedReply: AnyObject, Sendable {
    /// Whether the call has been answered (or timed out) already.
    var isResumed: Bool { get }
    /// Answers the call "timed out", unless it was answered before.
    func timeOut()
}

/// The deadlines of one ``HandlerThreads``' calls, all `timeout` long, watched by one thread of its
/// own that times out the calls not answered by then.
///
/// Every call has the same timeout, so the deadlines come in the order the calls do: the oldest call
/// not yet answered is the next to time out, and the watch sleeps until then. A call costs an append
/// and a few checks under a lock, where a timer task per call (what this replaces) cost a task, a
/// timer in the global executor that stayed armed after the call was answered, and two more jobs on
/// the cooperative pool.
final class CallDeadlines: @unchecked Sendable {
    // @unchecked: `calls`, `first`, `watching` and `retired` are only touched with `condition` locked.

    let timeout: Duration
    /// Guards the state below; signalled when a first call comes, and on retirement. Not
    /// Synchronization's Mutex (ARCHITECTURE.md, "Locks, and why none is a Mutex").
    private let condition = NSCondition()
    /// The calls from `first` on, oldest first; those before `first` are done with.
    private var calls: [(deadline: ContinuousClock.Instant, reply: any TimedReply)] = []
    private var first = 0
    /// Whether the watch thread runs: it starts with the first call and ends once retired and idle.
    private var watching = false
    private var retired = false

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Watches `reply`, from now on.
    func add(_ reply: any TimedReply) {
        let deadline = ContinuousClock.now + timeout
        let startWatch = condition.withLock {
            calls.append((deadline, reply))
            // The watch waits without a deadline only when there was no call.
            if calls.count - first == 1 { condition.signal() }
            guard !watching else { return false }
            watching = true
            return true
        }
        if startWatch { Thread { [self] in watch() }.start() }
    }

    /// Called after a call is answered: forgets the answered calls at the front.
    func answered() {
        condition.withLock { dropAnswered() }
    }

    /// Lets the watch end once no call waits.
    func retire() {
        condition.withLock {
            retired = true
            condition.signal()
        }
    }

    /// Drops the answered calls at the front (with `condition` locked); compacts now and then.
    private func dropAnswered() {
        while first < calls.count, calls[first].reply.isResumed { first += 1 }
        if first == calls.count {
            calls.removeAll(keepingCapacity: true)
            first = 0
        } else if first >= 1024, first * 2 >= calls.count {
            calls.removeFirst(first)
            first = 0
        }
    }

    private func watch() {
        condition.lock()
        defer { condition.unlock() }
        while true {
            dropAnswered()
            guard first < calls.count else {
                if retired {
                    watching = false
                    return
                }
                condition.wait()
                continue
            }
            let (deadline, reply) = calls[first]
            let left = deadline - ContinuousClock.now
            guard left <= .zero else {
                let (seconds, attoseconds) = left.components
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) * 1e-18))
                continue
            }
            first += 1
            condition.unlock()
            reply.timeOut()
            condition.lock()
        }
    }
}
