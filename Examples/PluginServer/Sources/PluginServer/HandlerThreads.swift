import Foundation
import RouteContracts
import Synchronization

/// A few threads of one plugin's own that run its route handlers, as a task executor.
///
/// A handler is plugin code and may block its thread (`sleep`, a busy loop, blocking I/O). Run on the
/// server's event loops or on Swift's cooperative pool (one thread per core), a few such calls stop
/// every route. Run here, the whole handler call, its awaits included, stays on these threads (the
/// task's executor preference), so a blocking handler takes only its own plugin's threads with it.
/// A thread cannot be killed: a stuck one stays stuck. The threads live until ``retire()``, and then
/// until they have nothing left to run.
final class HandlerThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `waiting`, `running` and `retired` are only read or written with `condition`
    // locked; the rest is immutable.

    /// How many jobs may wait for a thread before calls are turned away at once: with every thread
    /// stuck, the queue stops growing there (a call already waiting is still bounded by its timeout).
    let maxWaiting: Int
    /// Guards the state below, signalled for each job queued. Not Synchronization's Mutex, which
    /// ThreadSanitizer does not see through on Linux (ARCHITECTURE.md, "Locks, and why none is a Mutex").
    private let condition = NSCondition()
    /// Jobs waiting for a thread, oldest first (short: a free thread takes the first at once).
    private var waiting: [UnownedJob] = []
    /// Threads that have not left `runJobs`.
    private var running = 0
    /// Set by ``retire()``: a thread that finds no job waiting leaves.
    private var retired = false

    /// Starts `count` threads.
    init(count: Int, maxWaiting: Int) {
        self.maxWaiting = maxWaiting
        let count = max(count, 1)
        running = count
        for _ in 0..<count { startThread() }
    }

    private func startThread() {
        Thread { [self] in runJobs() }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let threadNeeded = condition.withLock {
            waiting.append(job)
            condition.signal()
            // A call begun before the retirement may still have a job to run (its handler resumed
            // after an await) when every thread has left: one comes back for it.
            guard retired, running == 0 else { return false }
            running += 1
            return true
        }
        if threadNeeded { startThread() }
    }

    private func runJobs() {
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The oldest job, once there is one; nil if these threads are retired and none is waiting.
    private func nextJob() -> UnownedJob? {
        condition.withLock {
            while waiting.isEmpty {
                if retired {
                    running -= 1
                    return nil
                }
                condition.wait()
            }
            return waiting.removeFirst()
        }
    }

    /// Lets the threads end once they are idle: the plugin serves from other threads now (a new
    /// version's), and the calls begun here finish here. A thread stuck in a handler ends when the
    /// handler returns.
    func retire() {
        condition.withLock {
            retired = true
            condition.broadcast()
        }
    }

    /// What became of one handler call.
    enum Outcome: Sendable {
        case answered(RouteResponse)
        case failed(any Error)
        /// No answer within the timeout: the call is cancelled and left to finish on its thread.
        case timedOut
        /// Too many calls wait for a thread already: the handler was not called.
        case busy
    }

    /// Calls `handler` on these threads and awaits its answer for at most `timeout`, the wait for a
    /// thread included. `owner`, what `handler` was taken from, is held until the handler returns,
    /// also after a timeout: the plugin version it belongs to is not stopped under it.
    func call(_ handler: any RouteHandler, _ request: RouteRequest, holding owner: AnyObject & Sendable,
              timeout: Duration) async -> Outcome {
        guard condition.withLock({ waiting.count }) < maxWaiting else { return .busy }
        var work: Task<Void, Never>?
        // Not a task group: a group awaits all its children, a stuck handler included. The handler and
        // the timer each try to resume this continuation; the first one does.
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let reply = Reply(continuation)
            let timer = Task {
                do { try await Task.sleep(for: timeout) } catch { return }  // cancelled: answered in time
                reply.resume(.timedOut)
            }
            work = Task(executorPreference: self) {
                // A call that timed out while it waited for a thread does not start.
                guard !Task.isCancelled else { return }
                do {
                    reply.resume(.answered(try await handler.handle(request)))
                } catch {
                    reply.resume(.failed(error))
                }
                timer.cancel()
                withExtendedLifetime(owner) {}
            }
        }
        if case .timedOut = outcome { work?.cancel() }
        return outcome
    }
}

/// Resumes a continuation once; later resumes are dropped.
private final class Reply: Sendable {
    private let continuation: CheckedContinuation<HandlerThreads.Outcome, Never>
    private let resumed = Atomic(false)

    init(_ continuation: CheckedContinuation<HandlerThreads.Outcome, Never>) {
        self.continuation = continuation
    }

    func resume(_ outcome: HandlerThreads.Outcome) {
        if resumed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            continuation.resume(returning: outcome)
        }
    }
}
