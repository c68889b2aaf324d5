import Glibc
import PluginAPI
import Synchronization

/// Starts `body` on a new POSIX thread.
private func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Start { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    let context = Unmanaged.passRetained(Start(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { raw in
        Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, context)
    guard status == 0 else { fail("pthread_create: \(status)") }
    return thread
}

/// Lets threads start their timed work together, and collects when each started and ended.
private final class Gate: Sendable {
    let ready = Atomic<Int>(0)
    let open = Atomic<Bool>(false)
    let spans = Mutex<[(start: UInt64, end: UInt64)]>([])
}

/// Runs `work(thread, iterations)` on `count` threads at once. Returns the wall time from the first
/// thread's start to the last one's end, in nanoseconds.
func runThreads(_ count: Int, iterations: Int, _ work: @escaping @Sendable (_ thread: Int, _ iterations: Int) -> UInt) -> UInt64 {
    let gate = Gate()
    let threads = (0..<count).map { index in
        startThread {
            gate.ready.add(1, ordering: .releasing)
            while !gate.open.load(ordering: .acquiring) {}
            let start = now()
            let result = work(index, iterations)
            let end = now()
            blackHole(result)
            gate.spans.withLock { $0.append((start, end)) }
        }
    }
    while gate.ready.load(ordering: .acquiring) < count { sched_yield() }
    gate.open.store(true, ordering: .releasing)
    for thread in threads { pthread_join(thread, nil) }
    return gate.spans.withLock { spans in
        (spans.map(\.end).max() ?? 0) - (spans.map(\.start).min() ?? 0)
    }
}

/// One contestant on 1 and 2 threads: the same fixed work per thread, throughput compared.
struct ThreadResult: Sendable {
    let name: String
    let iterationsPerThread: Int
    /// Millions of gets per second, per repetition.
    let oneThread: [Double]
    let twoThreads: [Double]

    /// 2-thread throughput over 1-thread throughput (medians).
    var ratio: Double { twoThreads.median / oneThread.median }
}

enum ThreadCases {
    struct Scenario {
        let name: String
        let work: @Sendable (_ thread: Int, _ iterations: Int) -> UInt
    }

    static func name(_ contestant: String, _ services: String) -> String { "threads/\(contestant)/\(services)" }

    /// Each contestant with both threads on the same service, and each thread on its own service.
    static func scenarios() -> [Scenario] {
        let floor = Floor()
        let readOnly = LocatorCases.makeLocator(readOnly: true)
        let mutable = LocatorCases.makeLocator(readOnly: false)
        let swinject = SwinjectFixture()
        let sameKey = Keys.atOne
        let ownKeys = Keys.perThread
        return [("same", false), ("different", true)].flatMap { services, own in
            [
                Scenario(name: name("floor", services)) { thread, iterations in
                    let floor = opaque(floor), key = opaque(own ? ownKeys[thread].storeKey : sameKey.storeKey)
                    var sum: UInt = 0
                    for _ in 0..<iterations { sum &+= token(floor.get(key)) }
                    return sum
                },
                Scenario(name: name("locator-readOnly", services)) { thread, iterations in
                    locatorLoop(readOnly, own ? ownKeys[thread] : sameKey, iterations)
                },
                Scenario(name: name("locator-mutable", services)) { thread, iterations in
                    locatorLoop(mutable, own ? ownKeys[thread] : sameKey, iterations)
                },
                Scenario(name: name("swinject-synchronize", services)) { thread, iterations in
                    // The unnamed registration for "same"; one named registration per thread for "different".
                    let resolver = opaque(swinject).synchronized, name = opaque(own ? ownKeys[thread].storeKey : nil)
                    var sum: UInt = 0
                    for _ in 0..<iterations { sum &+= token(resolver.resolve((any BenchService).self, name: name)) }
                    return sum
                },
            ]
        }
    }

    private static func locatorLoop(_ locator: ServiceLocator, _ key: Keys.Key, _ iterations: Int) -> UInt {
        let locator = opaque(locator), key = opaque(key)
        var sum: UInt = 0
        for _ in 0..<iterations { sum &+= token(locator.getService(key: key)) }
        return sum
    }

    /// Measures one scenario: a warm-up on one thread picks the work per thread, then 1-thread and
    /// 2-thread runs alternate.
    static func measure(_ scenario: Scenario, _ config: HarnessConfig) -> ThreadResult {
        guard (0..<2).allSatisfy({ scenario.work($0, 1) < 1 << 32 }) else { fail("\(scenario.name): a get returned nil; the setup is wrong") }
        var batch = config.fixedIterations ?? 1024
        var elapsed: UInt64 = 0
        while true {
            elapsed = runThreads(1, iterations: batch, scenario.work)
            if config.fixedIterations != nil || elapsed >= config.warmupNanos || batch >= 1 << 30 { break }
            batch *= 2
        }
        let perOperation = max(Double(elapsed) / Double(batch), 0.1)
        let iterations = config.fixedIterations ?? max(1, Int(2 * Double(config.targetNanos) / perOperation))
        var one: [Double] = []
        var two: [Double] = []
        for repetition in 0..<config.repetitions {
            // Alternate which goes first, so a slow phase of the machine hits both alike.
            for threads in repetition % 2 == 0 ? [1, 2] : [2, 1] {
                let wall = runThreads(threads, iterations: iterations, scenario.work)
                let throughput = Double(threads * iterations) / Double(wall) * 1_000   // millions per second
                if threads == 1 { one.append(throughput) } else { two.append(throughput) }
            }
        }
        return ThreadResult(name: scenario.name, iterationsPerThread: iterations, oneThread: one, twoThreads: two)
    }
}
