/// The slots of a read-only locator: an open-addressing table built once, then read by any number of
/// threads without a lock.
///
/// Each bucket is one unretained slot reference (8 bytes; the slot holds its own key), so a table
/// costs about 10 bytes per slot where a `[String: AnySlot]` costs 24 to 48. A get borrows its slot
/// instead of retaining it: one shared reference count fewer for threads that get the same service.
final class FrozenSlots: @unchecked Sendable {
    // @unchecked: immutable after `init`; the table owns one retain of every slot in it.
    private let buckets: UnsafeMutablePointer<Unmanaged<AnySlot>?>
    private let mask: Int
    /// How many slots the table holds.
    let count: Int

    init(_ slots: [SlotKey: AnySlot]) {
        // A power of two at least 5/4 of the count: at most 80% full, so probes stay short.
        var capacity = 8
        while capacity < slots.count + slots.count / 4 + 1 { capacity <<= 1 }
        mask = capacity - 1
        count = slots.count
        buckets = .allocate(capacity: capacity)
        buckets.initialize(repeating: nil, count: capacity)
        // The hashes were kept with the keys: no key's characters (nor slot) is read to place it.
        for (key, slot) in slots {
            var index = key.hash & mask
            while buckets[index] != nil { index = (index + 1) & mask }
            buckets[index] = Unmanaged.passRetained(slot)
        }
    }

    deinit {
        for index in 0...mask { buckets[index]?.release() }
        buckets.deallocate()
    }

    /// The slot for `key`, unretained: valid while this table lives.
    @inline(__always)
    func lookup(_ key: String) -> Unmanaged<AnySlot>? {
        lookup(key, hash: key.hashValue)
    }

    /// The slot for `key`, whose `hashValue` is `hash`.
    @inline(__always)
    func lookup(_ key: String, hash: Int) -> Unmanaged<AnySlot>? {
        var index = hash & mask
        while let slot = buckets[index] {
            if slot._withUnsafeGuaranteedRef({ $0.key == key }) { return slot }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Every slot, in no particular order.
    var all: [AnySlot] {
        (0...mask).compactMap { buckets[$0]?.takeUnretainedValue() }
    }

    /// The slots as a dictionary, for a clone that will change them.
    var dictionary: [SlotKey: AnySlot] {
        Dictionary(uniqueKeysWithValues: all.lazy.map { (SlotKey($0.key), $0) })
    }
}
