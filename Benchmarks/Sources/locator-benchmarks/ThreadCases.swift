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
    let spans = Mutex<[(start: UInt64, end: UInt64, cpu: UInt64)]>([])
}

/// CPU time this thread has used, in nanoseconds: unlike wall time, it does not grow while another
/// process has the core.
func threadCPUTime() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// What one run of `runThreads` took.
struct ThreadRun {
    /// From the first thread's start to the last one's end, in nanoseconds.
    let wall: UInt64
    /// Each thread's CPU time, in nanoseconds.
    let cpu: [UInt64]

    /// How many threads ran at once on average: the CPU time of all threads over the wall time. Near
    /// the thread count when each had a core; lower when another process took one (or a lock made
    /// a thread sleep).
    var parallelism: Double { Double(cpu.reduce(0, +)) / Double(max(wall, 1)) }
}

/// Runs `threads` threads until a run had a core for each (parallelism >= 0.92 per thread), at most
/// `tries` times; returns the first such run or else the most parallel one. On this 2-core machine
/// other processes (compilers, tests) often take a core, and a 2-thread run squeezed onto one core
/// says nothing about contention.
func runOnFreeCores(_ threads: Int, iterations: Int, tries: Int,
                    _ work: @escaping @Sendable (_ thread: Int, _ iterations: Int) -> UInt) -> ThreadRun {
    var best: ThreadRun?
    for _ in 0..<max(1, tries) {
        let run = runThreads(threads, iterations: iterations, work)
        if run.parallelism >= 0.92 * Double(threads) { return run }
        if best.map({ run.parallelism > $0.parallelism }) ?? true { best = run }
    }
    return best!
}

/// Runs `work(thread, iterations)` on `count` threads at once.
func runThreads(_ count: Int, iterations: Int, _ work: @escaping @Sendable (_ thread: Int, _ iterations: Int) -> UInt) -> ThreadRun {
    let gate = Gate()
    let threads = (0..<count).map { index in
        startThread {
            gate.ready.add(1, ordering: .releasing)
            while !gate.open.load(ordering: .acquiring) {}
            let start = now(), cpuStart = threadCPUTime()
            let result = work(index, iterations)
            let end = now(), cpuEnd = threadCPUTime()
            blackHole(result)
            gate.spans.withLock { $0.append((start, end, cpuEnd - cpuStart)) }
        }
    }
    while gate.ready.load(ordering: .acquiring) < count { sched_yield() }
    gate.open.store(true, ordering: .releasing)
    for thread in threads { pthread_join(thread, nil) }
    return gate.spans.withLock { spans in
        ThreadRun(wall: (spans.map(\.end).max() ?? 0) - (spans.map(\.start).min() ?? 0), cpu: spans.map(\.cpu))
    }
}

/// One contestant on 1 and 2 threads: the same fixed work per thread, throughput compared.
struct ThreadResult: Sendable {
    let name: String
    let iterationsPerThread: Int
    /// Millions of gets per second (wall clock), per repetition.
    let oneThread: [Double]
    let twoThreads: [Double]
    /// 2-thread over 1-thread throughput of each repetition's pair of runs, by wall clock.
    let pairRatios: [Double]
    /// The same by CPU time: each thread's gets over its own CPU time, summed. Another process taking a
    /// core does not lower it; contention between the two threads does.
    let cpuPairRatios: [Double]

    /// The parallelism of each 2-thread run (2.0: both threads ran all the time).
    let parallelism: [Double]

    /// The median of the pairs' ratios: a slow phase of the machine hits both runs of a pair alike.
    var ratio: Double { pairRatios.median }
    var cpuRatio: Double { cpuPairRatios.median }
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
        // What two threads gain on this machine with nothing shared at all: arithmetic on private
        // registers. 2.0 if the two virtual cores are two physical cores; less if they are two
        // hyperthreads of one core, or the hypervisor runs them on one.
        let privateWork = Scenario(name: name("private-arithmetic", "none")) { thread, iterations in
            var state = UInt(thread + 1) &* 0x9E37_79B9
            for _ in 0..<iterations {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
            }
            return state & 0xFFFF
        }
        return [privateWork] + [("same", false), ("different", true)].flatMap { services, own in
            [
                Scenario(name: name("floor", services)) { thread, iterations in
                    let floor = opaque(floor), key = opaque(own ? ownKeys[thread].storeKey : sameKey.storeKey)
                    var sum: UInt = 0
                    for _ in 0..<iterations { sum &+= token(floor.get(key)) }
                    return sum
                },
                // Only what every locator must do to hand out a shared service: copy (retain) and drop
                // (release) the reference, no lookup at all. Its 2T/1T ratio is the limit for a get
                // that costs this little more than the hand-out itself.
                Scenario(name: name("handout", services)) { thread, iterations in
                    let service = opaque(floor.get(own ? ownKeys[thread].storeKey : sameKey.storeKey))
                    var sum: UInt = 0
                    for _ in 0..<iterations { sum &+= token(opaque(service)) }
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

    /// Measures every scenario. A warm-up on one thread picks each one's work per thread; then each
    /// repetition runs every scenario once on 1 and once on 2 threads, so that whatever the machine does
    /// meanwhile (other jobs, the hypervisor moving the two virtual cores, which changes what sharing
    /// a cache line costs) hits the floor and the contestants alike.
    static func measureAll(_ scenarios: [Scenario], _ config: HarnessConfig) -> [ThreadResult] {
        let iterations = scenarios.map { calibrate($0, config) }
        var one = [[Double]](repeating: [], count: scenarios.count), two = one, ratios = one, cpuRatios = one, parallel = one
        for repetition in 0..<config.repetitions {
            for (index, scenario) in scenarios.enumerated() {
                // Alternate which goes first, so a slow phase of the machine hits both alike.
                var wall: [Int: Double] = [:], cpu: [Int: Double] = [:]
                for threads in (repetition + index) % 2 == 0 ? [1, 2] : [2, 1] {
                    let run = runOnFreeCores(threads, iterations: iterations[index], tries: config.threadTries, scenario.work)
                    if threads == 2 { parallel[index].append(run.parallelism) }
                    wall[threads] = Double(threads * iterations[index]) / Double(run.wall) * 1_000   // millions per second
                    cpu[threads] = run.cpu.map { Double(iterations[index]) / Double(max($0, 1)) * 1_000 }.reduce(0, +)
                }
                one[index].append(wall[1]!)
                two[index].append(wall[2]!)
                ratios[index].append(wall[2]! / wall[1]!)
                cpuRatios[index].append(cpu[2]! / cpu[1]!)
            }
        }
        return scenarios.indices.map { index in
            ThreadResult(name: scenarios[index].name, iterationsPerThread: iterations[index], oneThread: one[index],
                         twoThreads: two[index], pairRatios: ratios[index], cpuPairRatios: cpuRatios[index],
                         parallelism: parallel[index])
        }
    }

    /// Warms `scenario` up on one thread; returns the gets per thread that take about twice the target time.
    private static func calibrate(_ scenario: Scenario, _ config: HarnessConfig) -> Int {
        guard (0..<2).allSatisfy({ scenario.work($0, 1) < 1 << 32 }) else { fail("\(scenario.name): a get returned nil; the setup is wrong") }
        var batch = config.fixedIterations ?? 1024
        var elapsed: UInt64 = 0
        while true {
            elapsed = runThreads(1, iterations: batch, scenario.work).wall
            if config.fixedIterations != nil || elapsed >= config.warmupNanos || batch >= 1 << 30 { break }
            batch *= 2
        }
        let perOperation = max(Double(elapsed) / Double(batch), 0.1)
        return config.fixedIterations ?? max(1, Int(2 * Double(config.targetNanos) / perOperation))
    }
}
