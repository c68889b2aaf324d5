/// The slots of a read-only locator: an open-addressing table built once, then read by any number of
/// threads without a lock.
///
/// Each bucket is a slot's full hash (``StoreKeyHash``, the same in every process) and an unretained
/// reference to the slot (16 bytes; the slot holds its own key), the table at most 80% full: about 20
/// to 40 bytes per slot, as a `[String: AnySlot]`. A probe compares hashes, read from the bucket
/// itself, and reads a slot's key only when they are equal: a key placed past its first bucket costs
/// a few compares of the buckets at hand, never a walk to other slots' keys (which, with Swift's
/// seeded hash, made one process's gets cost up to twice another's). A get borrows its slot instead of
/// retaining it: one shared reference count fewer for threads that get the same service.
final class FrozenSlots: @unchecked Sendable {
    // @unchecked: immutable after `init`; the table owns one retain of every slot in it.
    private struct Bucket {
        var hash: Int
        var slot: Unmanaged<AnySlot>?
    }

    private let buckets: UnsafeMutablePointer<Bucket>
    private let mask: Int
    /// How many slots the table holds.
    let count: Int

    init(_ slots: [SlotKey: AnySlot]) {
        // A power of two at least 5/4 of the count: at most 80% full; a longer probe costs only
        // compares of hashes in neighbouring buckets.
        var capacity = 8
        while capacity < slots.count + slots.count / 4 + 1 { capacity <<= 1 }
        mask = capacity - 1
        count = slots.count
        buckets = .allocate(capacity: capacity)
        buckets.initialize(repeating: Bucket(hash: 0, slot: nil), count: capacity)
        // The hashes were kept with the keys: no key's characters (nor slot) is read to place it.
        for (key, slot) in slots {
            var index = key.hash & mask
            while buckets[index].slot != nil { index = (index + 1) & mask }
            buckets[index] = Bucket(hash: key.hash, slot: .passRetained(slot))
        }
    }

    deinit {
        for index in 0...mask { buckets[index].slot?.release() }
        buckets.deallocate()
    }

    /// The slot for `key`, unretained: valid while this table lives.
    @inline(__always)
    func lookup(_ key: String) -> Unmanaged<AnySlot>? {
        lookup(key, hash: StoreKeyHash.of(key))
    }

    /// The slot for `key`, whose ``StoreKeyHash`` is `hash`.
    @inline(__always)
    func lookup(_ key: String, hash: Int) -> Unmanaged<AnySlot>? {
        var index = hash & mask
        while let slot = buckets[index].slot {
            if buckets[index].hash == hash, slot._withUnsafeGuaranteedRef({ $0.key == key }) { return slot }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Every slot, in no particular order.
    var all: [AnySlot] {
        (0...mask).compactMap { buckets[$0].slot?.takeUnretainedValue() }
    }

    /// The slots as a dictionary, for a clone that will change them.
    var dictionary: [SlotKey: AnySlot] {
        Dictionary(uniqueKeysWithValues: all.lazy.map { (SlotKey($0.key), $0) })
    }
}
