import Glibc

/// A value that many threads read and few write, guarded by a `pthread_rwlock_t`: readers do not
/// wait for each other. Where a host's current locator lives (``ServiceSource``): a `Lock` there made
/// two threads that each read it for every request queue on each other, and sleep in the kernel.
///
/// Unsafe code, audited. Invariants:
/// - `rwlock` is allocated and initialized in `init`, destroyed and freed in `deinit`, and nothing
///   else keeps its address.
/// - `value` is read only with the lock held for reading, written only with it held for writing.
/// - The lock prefers writers, non-recursively: a stream of readers cannot hold a write back for
///   good. No thread takes the lock again while it holds it (with a writer waiting between the
///   two, a reader would wait for itself; a writer would get `EDEADLK`, unchecked): ``read()``
///   only copies the value, and ``write(_:)`` releases the value it replaces after unlocking.
final class ReadWriteLock<Value> {
    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>
    private var value: Value

    /// A lock guarding `value`.
    init(_ value: Value) {
        self.value = value
        rwlock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        rwlock.initialize(to: pthread_rwlock_t())
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(rwlock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(rwlock)
        rwlock.deallocate()
    }

    /// The value, read with the lock held for reading (other readers read at the same time).
    @inline(__always)
    func read() -> Value {
        pthread_rwlock_rdlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        return value
    }

    /// Runs `body` with the lock held for writing: no reader nor other writer meanwhile. The value
    /// it replaces is released once the lock is let go: its `deinit` may read this lock.
    func write<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_wrlock(rwlock)
        let replaced = value
        defer { withExtendedLifetime(replaced) {} }
        defer { pthread_rwlock_unlock(rwlock) }
        return try body(&value)
    }
}

// @unchecked: `value` is only touched with `rwlock` held; it crosses threads, so it must be Sendable.
extension ReadWriteLock: @unchecked Sendable where Value: Sendable {}
