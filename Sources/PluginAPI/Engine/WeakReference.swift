/// A service held weakly, read back without a dynamic cast. Used under a lock.
///
/// Beside the weak reference it keeps the service's own bits (an existential, say), copied without
/// retaining anything. They are read, as a proper retained copy, only while the strong reference the
/// weak load produced keeps that same object alive; once the object is gone the weak load fails
/// first and the stale bits are never read. Casting `AnyObject` back to a protocol instead costs a
/// conformance lookup on every get.
final class WeakReference<Service: Sendable>: @unchecked Sendable {
    // @unchecked: only used with its owner's lock held.
    private weak var object: AnyObject?
    /// The service's bits; they own nothing, so nothing is released when they are overwritten.
    private let bits = UnsafeMutableRawPointer.allocate(byteCount: max(MemoryLayout<Service>.size, 1),
                                                        alignment: MemoryLayout<Service>.alignment)
    private var holding = false

    deinit {
        bits.deallocate()
    }

    /// Holds `service` weakly if it is a class instance; a value cannot be held weakly.
    func hold(_ service: Service) {
        guard type(of: service as Any) is AnyClass else {
            object = nil
            holding = false
            return
        }
        object = service as AnyObject
        withUnsafeBytes(of: service) { raw in
            if let base = raw.baseAddress { bits.copyMemory(from: base, byteCount: raw.count) }
        }
        holding = true
    }

    /// The service, if the object is still alive.
    func service() -> Service? {
        guard holding, let alive = object else { return nil }
        return withExtendedLifetime(alive) { bits.load(as: Service.self) }
    }
}
