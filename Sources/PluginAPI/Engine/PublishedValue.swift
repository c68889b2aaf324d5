import Synchronization

/// A value published at most once, then read by any number of threads without a lock: where a
/// singleton's instance lives once it is final (an instance handed in, an `atOne` factory's result,
/// a `lazy` service once made).
///
/// Unsafe code, audited. Invariants:
/// - `bits` is 0 or the address of one initialized `Value`, allocated here; once not 0 it never
///   changes until `deinit`, which deinitializes and frees it. So an address read from ``pointer``
///   stays valid while this value lives.
/// - The value is written before it is published (release) and read after it is seen (acquire).
/// - It sits on a cache line of its own (64 bytes, or more for a larger value): otherwise malloc may
///   put it beside, say, another thread's service object, whose reference count that thread writes on
///   every get, and each write would evict this value from the reading core's cache (false sharing).
struct PublishedValue<Value: Sendable>: ~Copyable, @unchecked Sendable {
    // @unchecked: the raw pointer; see the invariants above.
    private let bits = Atomic<UInt>(0)
    private static var cacheLine: Int { 64 }

    init() {}

    /// The published value's address, or `nil`. Not generic in what it returns, so unspecialized
    /// code reads it without a metadata lookup.
    @inline(__always)
    var pointer: UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring))
    }

    /// Publishes `value` unless a value is published already; returns whether it was.
    @discardableResult
    func publish(_ value: Value) -> Bool {
        let bytes = (MemoryLayout<Value>.size + Self.cacheLine - 1) / Self.cacheLine * Self.cacheLine
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, Self.cacheLine), alignment: Self.cacheLine)
        raw.initializeMemory(as: Value.self, to: value)
        if bits.compareExchange(expected: 0, desired: UInt(bitPattern: raw), ordering: .acquiringAndReleasing).exchanged {
            return true
        }
        // Another thread published first: this copy was never seen.
        raw.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
        raw.deallocate()
        return false
    }

    deinit {
        guard let raw = UnsafeMutableRawPointer(bitPattern: bits.load(ordering: .acquiring)) else { return }
        raw.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
        raw.deallocate()
    }
}
