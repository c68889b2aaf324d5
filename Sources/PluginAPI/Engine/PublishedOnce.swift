import Synchronization

/// A reference published once and read without a lock and without retaining it; replaced only by
/// ``exchange(_:)``, whose caller keeps the instance it replaced alive.
///
/// Replaces `AtomicLazyReference`, whose `load()` is not inlined across modules and retains what it
/// returns: on a get's hot path that was a runtime metadata lookup and a shared reference count that
/// two threads fight over. The instance stays published (retained once) until this value is destroyed,
/// so borrowing it while the owner lives is safe.
struct PublishedOnce<Instance: AnyObject & Sendable>: ~Copyable, @unchecked Sendable {
    private let bits = Atomic<UInt>(0)

    init() {}

    /// Runs `body` on the published instance, if any, borrowing it (no retain). Not written with
    /// `unretained`: in unspecialized generic code (a lazy core's `made`) the `Optional<Unmanaged<_>>`
    /// in between costs a metadata lookup per get, about 1,000 instructions.
    @inline(__always)
    func withValue<R>(_ body: (Instance) -> R) -> R? {
        let raw = bits.load(ordering: .acquiring)
        guard raw != 0, let pointer = UnsafeRawPointer(bitPattern: raw) else { return nil }
        return Unmanaged<Instance>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// The published instance, if any, unretained: valid while this value lives.
    @inline(__always)
    var unretained: Unmanaged<Instance>? {
        UnsafeRawPointer(bitPattern: bits.load(ordering: .acquiring)).map { Unmanaged<Instance>.fromOpaque($0) }
    }

    var isSet: Bool { bits.load(ordering: .acquiring) != 0 }

    /// Publishes `instance` unless one is already there.
    func storeIfNil(_ instance: Instance) {
        let raw = UInt(bitPattern: Unmanaged.passRetained(instance).toOpaque())
        if !bits.compareExchange(expected: 0, desired: raw, ordering: .acquiringAndReleasing).exchanged {
            // Lost the race: give back the reference taken above.
            Unmanaged.passUnretained(instance).release()
        }
    }

    /// Publishes `instance` in place of the current one and returns that one still retained, or nil
    /// if there was none. Readers may still be borrowing it: the caller must keep it alive as long as
    /// this value lives (release it only then).
    func exchange(_ instance: Instance) -> Unmanaged<Instance>? {
        let raw = UInt(bitPattern: Unmanaged.passRetained(instance).toOpaque())
        let old = bits.exchange(raw, ordering: .acquiringAndReleasing)
        return UnsafeRawPointer(bitPattern: old).map { Unmanaged<Instance>.fromOpaque($0) }
    }

    deinit {
        let raw = bits.load(ordering: .acquiring)
        if let pointer = UnsafeRawPointer(bitPattern: raw) { Unmanaged<Instance>.fromOpaque(pointer).release() }
    }
}
