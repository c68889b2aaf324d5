import Glibc

/// The threads that run the calls other processes make on this one's services: a task executor of
/// the library's own, which each served call's task prefers (`Task(executorPreference:)`), so the call
/// and the default actors it reaches run here, not on Swift concurrency's cooperative pool.
///
/// A host that blocks the pool's few threads (a synchronous `load` in async code, waiting for the
/// very children whose start hooks call the host) would otherwise leave its children's calls waiting
/// until their timeouts. A served method that blocks holds one of these threads: the others serve on.
///
/// **Who wakes for a job.** A job enqueued by one of these threads while it runs a job wakes no
/// other: it is almost always the task that thread runs, switching onto or off an actor (with a
/// task executor preference the runtime never switches in place), and the thread takes the queue
/// again as that run returns. A served call switches so twice; waking a second thread each time
/// cost each call four thread switches and a third of the serving process's CPU. A thread that
/// takes a job and leaves others queued wakes one more, so jobs that were queued together run
/// together. A job that enqueues work and then blocks its thread would leave that work waiting:
/// ``wakeIfStalled()``, which each connection's reader calls at its timeout tick, wakes a thread for
/// a queue that no thread took from since the last tick.
///
/// Invariants: the queue's fields are touched only under its ``Lock``; each job is run once, by
/// the thread that took it; a thread's identity is in `running` exactly while it runs a job.
/// Nothing here is unsafe. The threads live as long as the process (one executor per process,
/// made at first use).
final class ServingExecutor: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        /// The threads of this executor that run a job now (`pthread_self()`).
        var running: [pthread_t] = []
        /// Jobs taken so far, and as ``wakeIfStalled()`` last saw it: unchanged, with jobs queued, is a stall.
        var taken: UInt64 = 0
        var takenAtLastLook: UInt64 = 0
    }

    private let queue = Lock(Queue())

    /// The process's executor of served calls.
    static let shared = ServingExecutor(threads: 4)

    private init(threads: Int) {
        for _ in 0..<threads {
            // A process that cannot start a thread runs with fewer; with none, calls wait for their timeouts.
            _ = DetachedThread.start { self.runJobs() }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let thread = pthread_self()
        let takenByThisThread = queue.withLock { queue -> Bool in
            queue.jobs.append(job)
            return queue.running.contains { pthread_equal($0, thread) != 0 }
        }
        if !takenByThisThread { queue.wakeOne() }
    }

    /// Wakes a thread if jobs wait and none was taken since the last call: the job that queued them
    /// blocked its thread instead of returning. Cheap when nothing waits.
    func wakeIfStalled() {
        let stalled = queue.withLock { queue -> Bool in
            defer { queue.takenAtLastLook = queue.taken }
            return !queue.jobs.isEmpty && queue.taken == queue.takenAtLastLook
        }
        if stalled { queue.wakeOne() }
    }

    private func runJobs() {
        let thread = pthread_self()
        while true {
            let (job, othersWait) = queue.withLock(when: { !$0.jobs.isEmpty }) { queue -> (UnownedJob, Bool) in
                queue.taken &+= 1
                queue.running.append(thread)
                return (queue.jobs.removeFirst(), !queue.jobs.isEmpty)
            }
            if othersWait { queue.wakeOne() }
            job.runSynchronously(on: asUnownedTaskExecutor())
            queue.withLock { queue in
                if let index = queue.running.firstIndex(where: { pthread_equal($0, thread) != 0 }) {
                    queue.running.remove(at: index)
                }
            }
        }
    }
}
