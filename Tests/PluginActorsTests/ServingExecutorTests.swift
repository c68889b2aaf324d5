import Dispatch
import Foundation
@_spi(HostKit) @testable import PluginActors
import Testing

/// The calls another process makes are served on PluginActors' own threads. Before, each served
/// call was a task of the cooperative pool: a host whose few pool threads were blocked (synchronous
/// loads in async code, waiting for children whose start hooks call the host) left its children's
/// calls waiting until their timeouts, and a whole-suite run failed so.
@Suite struct ServingExecutorTests {
    @Test func aCallIsServedWhileEveryThreadOfTheCooperativePoolIsBlocked() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        let caller = CallerExecutor()
        let outcome: Result<Pair, any Error> = await withTaskExecutorPreference(caller) {
            // Every thread of the pool waits on this semaphore (a task each; one more to be sure).
            let blocked = DispatchSemaphore(value: 0)
            let threads = ProcessInfo.processInfo.activeProcessorCount + 1
            for _ in 0..<threads { Task.detached { blocked.wait() } }
            defer { for _ in 0..<threads { blocked.signal() } }
            // The point of the test is the wait: served on the pool, the call waited for its timeout.
            do {
                return .success(try await PluginActorSystem.withCallTimeout(.seconds(10)) {
                    try await proxy.add(Pair(left: 1, right: 2, label: "blocked"))
                })
            } catch {
                return .failure(error)
            }
        }
        #expect(try outcome.get() == Pair(left: 3, right: 0, label: "blocked!"))
    }

    /// A served method that queues a child task and then blocks its thread until the child ran is
    /// answered: the child runs on another serving thread. A serving executor that woke no thread
    /// for a job its own thread queued (tried for speed, PH-0040) left that child waiting for the
    /// call's timeout.
    @Test func aServedMethodThatBlocksUntilItsOwnChildTaskRanIsAnswered() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        let sum = try await PluginActorSystem.withCallTimeout(.seconds(20)) {
            try await proxy.addOnAChildTaskItsThreadWaitsFor(Pair(left: 4, right: 5, label: "child"))
        }
        #expect(sum == Pair(left: 9, right: 0, label: "child!"))
    }
}

/// The test's side of the call runs on a thread of its own, as the pool is blocked.
private final class CallerExecutor: TaskExecutor {
    private let jobs = Lock<[UnownedJob]>([])

    init() {
        _ = DetachedThread.start { [jobs] in
            while true {
                let job = jobs.withLock(when: { !$0.isEmpty }) { $0.removeFirst() }
                job.runSynchronously(on: self.asUnownedTaskExecutor())
            }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        jobs.wakeOne()
    }
}
