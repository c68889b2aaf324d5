/// The process's memory at one moment: resident pages from `/proc/self/status`, which count what a
/// mapped library keeps (its touched code and relocated data), and the C heap in use beside them.
struct MemoryReading: Sendable {
    /// `VmRSS` in KiB: every resident page, the library files' pages in the page cache included.
    var resident = 0
    /// `RssAnon` in KiB: the private pages only (heap, stacks, a library's relocated data): what no
    /// other process shares and the kernel cannot drop.
    var anonymous = 0
    /// Bytes of the C heap in use (``heapInUse()``): the loader's and the host's bookkeeping.
    var heap = 0

    static func now() -> MemoryReading {
        guard let text = Machine.readText("/proc/self/status") else { fail("cannot read /proc/self/status") }
        var reading = MemoryReading(heap: heapInUse())
        for line in text.split(separator: "\n") {
            let fields = line.split { $0 == " " || $0 == "\t" }
            guard fields.count >= 2, let kib = Int(fields[1]) else { continue }
            switch fields[0] {
            case "VmRSS:": reading.resident = kib
            case "RssAnon:": reading.anonymous = kib
            default: break
            }
        }
        return reading
    }

    static func - (later: MemoryReading, earlier: MemoryReading) -> MemoryReading {
        MemoryReading(resident: later.resident - earlier.resident, anonymous: later.anonymous - earlier.anonymous,
                      heap: later.heap - earlier.heap)
    }

    static func += (sum: inout MemoryReading, more: MemoryReading) {
        sum = MemoryReading(resident: sum.resident + more.resident, anonymous: sum.anonymous + more.anonymous,
                            heap: sum.heap + more.heap)
    }
}
