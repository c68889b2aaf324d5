import Glibc

/// A value guarded by a `pthread_mutex_t`: PluginActors' one lock type (one per library, as
/// PluginAPI, ProcessSignals and HostKit's floor each keep theirs). Not `Synchronization.Mutex`:
/// ThreadSanitizer, which CI runs the suite under, does not see through it on Linux and reports
/// races on every value it guards.
///
/// Invariant: `value` is touched only with `mutex` held; the mutex lives exactly as long as the lock.
final class Lock<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

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

    /// Runs `body` with the value, the lock held.
    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// @unchecked: `value` is only touched with `mutex` held; it crosses threads, so it must be Sendable.
extension Lock: @unchecked Sendable where Value: Sendable {}
