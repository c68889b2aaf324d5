import Foundation
import Synchronization

/// A few threads of one plugin's own that run its code (its route handlers, and the reads of its
/// routes when they are installed), as a task executor, each call bounded by one timeout.
///
/// Plugin code may block its thread (`sleep`, a busy loop, blocking I/O). Run on the server's event
/// loops or on Swift's cooperative pool (one thread per core), a few such calls stop every route. Run
/// here, the whole call, its awaits included, stays on these threads (the task's executor preference),
/// so a blocking handler takes only its own plugin's threads with it. A thread cannot be killed: a
/// stuck one stays stuck. The threads live until ``retire()``, and then until they have nothing left
/// to run; the deadlines' watch (``CallDeadlines``) until no call waits for its answer.
final class HandlerThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `waiting`, `running`, `sleeping`, `spinning` and `retired` are only read or written
    // with `condition` locked; the rest is immutable or Sendable.

    /// How many jobs may wait for a thread before calls are turned away at once: with every thread
    /// stuck, the queue stops growing there (a call already waiting is still bounded by its timeout).
    let maxWaiting: Int
    /// How long a call waits for its answer, the wait for a thread included.
    var timeout: Duration { deadlines.timeout }
    /// Guards the state below; signalled when a job is queued and no thread is spinning for one. Not
    /// Synchronization's Mutex, which ThreadSanitizer does not see through on Linux (ARCHITECTURE.md,
    /// "Locks, and why none is a Mutex").
    private let condition = NSCondition()
    /// Jobs waiting for a thread, oldest first (short: a free thread takes the first at once).
    private var waiting: [UnownedJob] = []
    /// `waiting.count`, for a spinning thread to poll without the lock (written with it held).
    private let queued = Atomic(0)
    /// Threads that have not left `runJobs`.
    private var running = 0
    /// Threads asleep in `condition.wait()`, and threads spinning for a job (at most one).
    private var sleeping = 0, spinning = 0
    /// Set by ``retire()``: a thread that finds no job waiting leaves.
    private var retired = false
    /// The calls waiting for their answers, which it answers ``Outcome/timedOut`` at their deadline.
    private let deadlines: CallDeadlines

    /// Starts `count` threads, whose calls time out after `timeout`.
    init(count: Int, maxWaiting: Int, timeout: Duration) {
        self.maxWaiting = maxWaiting
        deadlines = CallDeadlines(timeout: timeout)
        let count = max(count, 1)
        running = count
        for _ in 0..<count { startThread() }
    }

    private func startThread() {
        Thread { [self] in runJobs() }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (wake, threadNeeded) = condition.withLock {
            waiting.append(job)
            queued.store(waiting.count, ordering: .releasing)
            // A call begun before the retirement may still have a job to run (its handler resumed
            // after an await) when every thread has left: one comes back for it.
            let threadNeeded = retired && running == 0
            if threadNeeded { running += 1 }
            // A spinning thread takes the job without a wake-up (a system call and a context switch,
            // most of what a handoff cost); it wakes another if more jobs wait (`nextJob`).
            return (spinning == 0 && sleeping > 0, threadNeeded)
        }
        // Signalled after unlocking: a thread woken with the lock held would block on it at once.
        if wake { condition.signal() }
        if threadNeeded { startThread() }
    }

    private func runJobs() {
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The oldest job, once there is one; nil if these threads are retired and none is waiting.
    ///
    /// With no job waiting, one thread at a time spins for a while (yielding its core) before it
    /// sleeps: under load the next job comes within microseconds, and is taken without a wake-up.
    /// A thread that takes a job while more wait and none spins wakes another, so that a job never
    /// waits behind a handler that blocks while a thread sleeps.
    private func nextJob() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        var spun = false
        while waiting.isEmpty {
            if retired {
                running -= 1
                return nil
            }
            if !spun && spinning == 0 {
                spun = true
                spinning += 1
                condition.unlock()
                var spins = 0
                while spins < Self.spins, queued.load(ordering: .acquiring) == 0 {
                    sched_yield()
                    spins += 1
                }
                condition.lock()
                spinning -= 1
                continue
            }
            sleeping += 1
            condition.wait()
            sleeping -= 1
        }
        let job = waiting.removeFirst()
        queued.store(waiting.count, ordering: .releasing)
        if !waiting.isEmpty && spinning == 0 && sleeping > 0 { condition.signal() }
        return job
    }

    /// How many times a thread with nothing to run yields its core, looking for a job, before it
    /// sleeps: some tens of microseconds.
    private static let spins = 64

    /// Lets the threads end once they are idle: the plugin serves from other threads now (a new
    /// version's), and the calls begun here finish here. A thread stuck in a handler ends when the
    /// handler returns.
    func retire() {
        condition.withLock {
            retired = true
            condition.broadcast()
        }
        deadlines.retire()
    }

    /// What became of one call.
    enum Outcome<Value: Sendable>: Sendable {
        case answered(Value)
        /// The call threw: what the error says, described on these threads (describing it, and
        /// releasing it, runs plugin code).
        case failed(String)
        /// No answer within the timeout: the call is cancelled and left to finish on its thread.
        case timedOut
        /// Too many calls wait for a thread already: the call was not made.
        case busy
    }

    /// Runs `body` on these threads and awaits its answer for at most ``timeout``, the wait for a
    /// thread included. `owner`, what `body` calls into, is held until `body` returns, also after a
    /// timeout: the plugin version it belongs to is not stopped under it.
    func run<Value: Sendable>(holding owner: AnyObject & Sendable,
                              _ body: @escaping @Sendable () async throws -> Value) async -> Outcome<Value> {
        guard condition.withLock({ waiting.count }) < maxWaiting else { return .busy }
        let deadlines = deadlines
        var work: Task<Void, Never>?
        // Not a task group: a group awaits all its children, a stuck call included. The call and the
        // deadlines' watch each try to resume this continuation; the first one does.
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome<Value>, Never>) in
            let reply = Reply(continuation)
            deadlines.add(reply)
            work = Task(executorPreference: self) {
                // A call that timed out while it waited for a thread does not start.
                guard !reply.isResumed else { return }
                do {
                    reply.resume(.answered(try await body()))
                } catch {
                    reply.resume(.failed(String(describing: error)))
                }
                deadlines.answered()
                withExtendedLifetime(owner) {}
            }
        }
        if case .timedOut = outcome { work?.cancel() }
        return outcome
    }
}

/// Resumes a continuation once; later resumes are dropped.
final class Reply<Value: Sendable>: Sendable, TimedReply {
    private let continuation: CheckedContinuation<HandlerThreads.Outcome<Value>, Never>
    private let resumed = Atomic(false)

    init(_ continuation: CheckedContinuation<HandlerThreads.Outcome<Value>, Never>) {
        self.continuation = continuation
    }

    /// Whether the continuation has been resumed.
    var isResumed: Bool { resumed.load(ordering: .acquiring) }

    func resume(_ outcome: HandlerThreads.Outcome<Value>) {
        if resumed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            continuation.resume(returning: outcome)
        }
    }

    func timeOut() {
        resume(.timedOut)
    }
}
