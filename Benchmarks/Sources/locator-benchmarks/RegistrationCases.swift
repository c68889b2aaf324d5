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
    static let floor = "registration/floor"
    static let oneByOne = "registration/addLazyService"
    static let module = "registration/addModule"

    /// A way to fill a fresh table with one slot per key. It returns a get, which keeps what it
    /// filled alive until the heap has been read.
    private typealias Fill = (_ keys: [Keys.Key]) throws -> (_ key: Keys.Key) -> Bool

    /// For each size: a fresh table, `size` slots (keys made beforehand); for the locator, lazy slots
    /// and then `setReadOnly`. The floor is a `[String: AnyObject]` of fresh objects: what the memory
    /// of this machine makes of growing a hash table by `size` entries, with no locator at all.
    static func run(_ config: HarnessConfig, sizes: [Int], filter: CaseFilter) -> [RegistrationResult] {
        let ways: [(String, Fill)] = [
            (floor, { keys in
                var table: [String: AnyObject] = [:]
                for key in keys { table[key.storeKey] = Service(token: 0) }
                return { [table] key in table[key.storeKey] != nil }
            }),
            (oneByOne, { keys in
                let locator = ServiceLocator()
                for key in keys { try locator.addLazyService(key: key) { Service(token: 0) } }
                locator.setReadOnly()
                return { key in locator.getService(key: key) != nil }
            }),
            (module, { keys in
                let locator = ServiceLocator()
                try locator.addModule(BulkModule(keys: keys))
                locator.setReadOnly()
                return { key in locator.getService(key: key) != nil }
            }),
        ]
        return ways.filter { filter.admits($0.0) }.flatMap { way, fill in
            sizes.map { size in
                let keys = (0..<size).map { Keys.Key(name: "bench.registered.service\($0)") }
                // One unmeasured round first: code paths and the allocator's free lists warm.
                var times: [Double] = []
                var bytes: [Double] = []
                var usedBytes: [Double] = []
                for repetition in -1..<config.repetitions {
                    let heapBefore = heapInUse()
                    let start = now()
                    let get: (Keys.Key) -> Bool
                    do { get = try fill(keys) } catch { fail("\(way): \(error)") }
                    let elapsed = now() - start
                    let heapAfter = heapInUse()
                    for key in keys where !get(key) { fail("\(way): slot \(key.storeKey) missing") }
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
