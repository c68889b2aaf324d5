import HeapStats
import PluginAPI

/// Bytes the C heap has handed out and not yet taken back (glibc's `mallinfo2()`, `uordblks + hblkhd`):
/// what a locator holds on to, without the pages the allocator keeps after a free (which VmRSS shows).
func heapInUse() -> Int {
    Int(heap_stats_in_use())
}

/// Adding many slots one by one, and as one module: time and heap bytes per slot.
struct RegistrationResult: Sendable {
    let way: String
    let slots: Int
    /// Nanoseconds per slot, per repetition.
    let nanosPerSlot: [Double]
    /// Heap bytes per slot, per repetition.
    let bytesPerSlot: [Double]
    /// Heap bytes per slot once every slot was gotten once (lazy slots are built on first use), per
    /// repetition. Not timed.
    let bytesPerUsedSlot: [Double]
}

/// A module that adds one lazy slot per key, as a plugin does.
private struct BulkModule: Module {
    let keys: [Keys.Key]
    var name: String { "bench.bulk" }

    func registerServices(in registrar: ModuleRegistrar) throws {
        for key in keys { try registrar.addLazyService(key: key) { Service(token: 0) } }
    }
}

enum RegistrationCases {
    static let sizes = [1_000, 10_000, 100_000]
    static let oneByOne = "registration/addLazyService"
    static let module = "registration/addModule"

    /// For each size: a fresh locator, `size` lazy slots (keys made beforehand), then `setReadOnly`.
    static func run(_ config: HarnessConfig, sizes: [Int], filter: CaseFilter) -> [RegistrationResult] {
        let ways: [(String, (ServiceLocator, [Keys.Key]) throws -> Void)] = [
            (oneByOne, { locator, keys in
                for key in keys { try locator.addLazyService(key: key) { Service(token: 0) } }
            }),
            (module, { locator, keys in try locator.addModule(BulkModule(keys: keys)) }),
        ]
        return ways.filter { filter.admits($0.0) }.flatMap { way, register in
            sizes.map { size in
                let keys = (0..<size).map { Keys.Key(name: "bench.registered.service\($0)") }
                // One unmeasured round first: code paths and the allocator's free lists warm.
                var times: [Double] = []
                var bytes: [Double] = []
                var usedBytes: [Double] = []
                for repetition in -1..<config.repetitions {
                    let heapBefore = heapInUse()
                    let start = now()
                    let locator = ServiceLocator()
                    do { try register(locator, keys) } catch { fail("\(way): \(error)") }
                    locator.setReadOnly()
                    let elapsed = now() - start
                    let heapAfter = heapInUse()
                    for key in keys where locator.getService(key: key) == nil { fail("\(way): slot \(key.storeKey) missing") }
                    let heapUsed = heapInUse()
                    if repetition >= 0 {
                        times.append(Double(elapsed) / Double(size))
                        bytes.append(Double(heapAfter - heapBefore) / Double(size))
                        usedBytes.append(Double(heapUsed - heapBefore) / Double(size))
                    }
                }
                return RegistrationResult(way: way, slots: size, nanosPerSlot: times, bytesPerSlot: bytes,
                                          bytesPerUsedSlot: usedBytes)
            }
        }
    }
}
