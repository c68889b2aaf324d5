import Glibc
import Synchronization

/// Nanoseconds on the monotonic clock.
@inline(__always)
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// Where every case's result ends up, so the optimizer cannot drop the work that produced it.
private let sinkWord = Atomic<UInt>(0)

/// Consumes a case's accumulated result. Never inlined, and it writes shared memory: the loop that
/// computed `value` must run. Called once per batch, never inside a measured loop.
@inline(never)
func blackHole(_ value: UInt) {
    sinkWord.wrappingAdd(value, ordering: .relaxed)
}

/// The sink's value, printed at the end so even the final write is observable.
var sinkValue: UInt { sinkWord.load(ordering: .relaxed) }

/// Hides a value from the optimizer: it cannot see through the call, so a loop cannot hoist what is
/// computed from the result. Used once per batch, to hand a case its inputs.
@inline(never) @_optimize(none)
func opaque<T>(_ value: T) -> T { value }

/// One case: `run(n)` does the operation `n` times and returns something computed from every result
/// (a sum of the services' tokens), which the harness hands to ``blackHole(_:)``.
struct BenchCase: Sendable {
    let name: String
    let run: @Sendable (_ iterations: Int) -> UInt
}

/// How long and how often to measure.
struct HarnessConfig: Sendable {
    /// Each warm-up batch doubles until one takes at least this long.
    var warmupNanos: UInt64
    /// The iterations of one repetition are chosen so that it takes about this long.
    var targetNanos: UInt64
    var repetitions: Int
    /// Fixed iterations per repetition (for profiling under valgrind), instead of a timed choice.
    var fixedIterations: Int?
    /// How often a multi-threaded run is tried again when the threads did not each have a core.
    var threadTries: Int

    static let full = HarnessConfig(warmupNanos: 20_000_000, targetNanos: 100_000_000, repetitions: 11, threadTries: 5)
    static let quick = HarnessConfig(warmupNanos: 1_000_000, targetNanos: 3_000_000, repetitions: 5, threadTries: 2)
}

/// The samples of one case, in nanoseconds per operation.
struct Measurement: Sendable {
    let name: String
    let iterations: Int
    let samples: [Double]

    var median: Double { samples.median }
    var min: Double { samples.min() ?? .nan }
    var max: Double { samples.max() ?? .nan }
}

extension Array where Element == Double {
    /// The middle value (the mean of the two middle ones for an even count).
    var median: Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The value that `fraction` of the samples do not exceed (nearest rank: 0.9 of 100 is the 90th).
    func percentile(_ fraction: Double) -> Double {
        guard !isEmpty else { return .nan }
        let rank = Int((fraction * Double(count)).rounded(.up))
        return sorted()[Swift.min(Swift.max(rank, 1), count) - 1]
    }
}

/// Warms `benchCase` up, picks the iterations per repetition, then times each repetition.
func measure(_ benchCase: BenchCase, _ config: HarnessConfig) -> Measurement {
    // Every service's token is small: a sum of 2^32 or more means a get returned nil.
    guard benchCase.run(1) < 1 << 32 else { fail("\(benchCase.name): a get returned nil; the setup is wrong") }
    // Warm-up: batches that double until one takes warmupNanos (one batch of the fixed size, if given,
    // so that an instruction count under valgrind is (repetitions + 1) x iterations gets).
    var batch = config.fixedIterations ?? 16
    var elapsed: UInt64 = 0
    while true {
        let start = now()
        blackHole(benchCase.run(batch))
        elapsed = now() - start
        if config.fixedIterations != nil || elapsed >= config.warmupNanos || batch >= 1 << 30 { break }
        batch *= 2
    }
    let perOperation = Swift.max(Double(elapsed) / Double(batch), 0.1)
    let iterations = config.fixedIterations ?? Swift.max(1, Int(Double(config.targetNanos) / perOperation))
    let samples = (0..<config.repetitions).map { _ in
        let start = now()
        blackHole(benchCase.run(iterations))
        return Double(now() - start) / Double(iterations)
    }
    return Measurement(name: benchCase.name, iterations: iterations, samples: samples)
}

/// Which cases run: all, or those whose name (or group) contains the filter, ignoring case.
struct CaseFilter: Sendable {
    let pattern: String?

    func admits(_ names: String...) -> Bool {
        guard let pattern = pattern?.lowercased(), !pattern.isEmpty else { return true }
        return names.contains { $0.lowercased().contains(pattern) }
    }
}

/// Writes a line to standard error (progress and failures; the report goes to standard output).
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Fails the run with a message: a benchmark whose setup is wrong measures nothing.
func fail(_ message: String) -> Never {
    printError("locator-benchmarks: \(message)")
    exit(1)
}
