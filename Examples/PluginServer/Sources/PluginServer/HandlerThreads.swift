import Foundation
import RouteContracts
import Synchronization

/// A few threads of one plugin's own that run its route handlers, as a task executor.
///
/// A handler is plugin code and may block its thread (`sleep`, a busy loop, blocking I/O). Run on the
/// server's event loops or on Swift's cooperative pool (one thread per core), a few such calls stop
/// every route. Run here, the whole handler call, its awaits included, stays on these threads (the
/// task's executor preference), so a blocking handler takes only its own plugin's threads with it.
/// A thread cannot be killed: a stuck one stays stuck, and the threads live as long as the process.
final class HandlerThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `waiting` is only read or written with `condition` locked; the rest is immutable.

    /// How many jobs may wait for a thread before calls are turned away at once: with every thread
    /// stuck, the queue stops growing there (a call already waiting is still bounded by its timeout).
    let maxWaiting: Int
    /// Guards `waiting`, signalled for each job queued. Not Synchronization's Mutex, which
    /// ThreadSanitizer does not see through on Linux (ARCHITECTURE.md, "Locks, and why none is a Mutex").
    private let condition = NSCondition()
    /// Jobs waiting for a thread, oldest first (short: a free thread takes the first at once).
    private var waiting: [UnownedJob] = []

    /// Starts `count` threads.
    init(count: Int, maxWaiting: Int) {
        self.maxWaiting = maxWaiting
        for _ in 0..<max(count, 1) {
            Thread { [self] in runJobs() }.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            waiting.append(job)
            condition.signal()
        }
    }

    private func runJobs() {
        while true {
            let job = condition.withLock {
                while waiting.isEmpty { condition.wait() }
                return waiting.removeFirst()
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
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
    /// thread included.
    func call(_ handler: any RouteHandler, _ request: RouteRequest, timeout: Duration) async -> Outcome {
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
