/// The threads that run the calls other processes make on this one's services: a task executor of
/// the library's own, which each served call's task prefers (`Task(executorPreference:)`), so the call
/// and the default actors it reaches run here, not on Swift concurrency's cooperative pool.
///
/// A host that blocks the pool's few threads (a synchronous `load` in async code, waiting for the
/// very children whose start hooks call the host) would otherwise leave its children's calls waiting
/// until their timeouts. A served method that blocks holds one of these threads: the others serve on.
///
/// Nothing here is unsafe: jobs are `UnownedJob`s in a ``Lock``, each run once by the thread that
/// took it. The threads live as long as the process (one executor per process, made at first use).
final class ServingExecutor: TaskExecutor {
    private let jobs = Lock<[UnownedJob]>([])

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
        jobs.withLock { $0.append(job) }
        jobs.wakeOne()
    }

    private func runJobs() {
        while true {
            let job = jobs.withLock(when: { !$0.isEmpty }) { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
