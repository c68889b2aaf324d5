import Foundation

/// A task executor with one thread of its own, for running a plugin's hook.
///
/// Hooks are plugin code the host cannot trust to return: one that blocks its thread must not take
/// a thread of the cooperative pool with it, or a few such hooks (or callers waiting for hooks) stall
/// every task in the process. Here a blocked hook blocks only its own thread.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `finished` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    /// Starts the thread, named `name` for debuggers and crash reports.
    init(name: String) {
        let thread = Thread { [self] in runJobs() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Lets the thread end once it has run the jobs already enqueued. Call it when the hook's task
    /// has ended: no job of it can come later, and tasks the hook started with `Task {}` do not
    /// inherit an executor preference (they run on the global executor), so none is stranded here.
    func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    private func runJobs() {
        while let job = nextJob() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private func nextJob() -> UnownedJob? {
        condition.withLock {
            while jobs.isEmpty && !finished { condition.wait() }
            return jobs.isEmpty ? nil : jobs.removeFirst()
        }
    }
}
