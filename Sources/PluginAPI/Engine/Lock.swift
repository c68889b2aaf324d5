import Glibc

/// A value guarded by a `pthread_mutex_t`: the lock of PluginAPI.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer sees through pthread mutexes but
/// not through `Mutex` on Linux (it reports races on every value a `Mutex` guards), and the test suite
/// runs under ThreadSanitizer.
final class Lock<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock guarding `value`.
    init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held; waits for it if another thread holds it.
    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// @unchecked: `value` is only touched with `mutex` held; it crosses threads, so it must be Sendable.
extension Lock: @unchecked Sendable where Value: Sendable {}
