import Glibc

/// A value guarded by a `pthread_mutex_t`, with a condition to wait on for a change of it:
/// PluginActors' one lock type (one per library, as PluginAPI, ProcessSignals and HostKit's floor
/// each keep theirs). Not `Synchronization.Mutex`: ThreadSanitizer, which CI runs the suite under,
/// does not see through it on Linux and reports races on every value it guards.
///
/// Invariant: `value` is touched only with `mutex` held; the mutex and the condition live exactly
/// as long as the lock.
final class Lock<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
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

    /// Waits until `ready` holds for the value (the lock is released while it waits, and `ready` is
    /// asked again after each ``wakeWaiters()``), then runs `body` with the value, the lock held.
    /// Blocks the calling thread: only for threads of this library's own (a connection's writer, the
    /// serving executor's).
    func withLock<Result>(when ready: (Value) -> Bool, _ body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(value) { pthread_cond_wait(condition, mutex) }
        return body(&value)
    }

    /// Wakes every thread waiting in ``withLock(when:_:)`` to ask its condition again.
    func wakeWaiters() {
        pthread_cond_broadcast(condition)
    }

    /// Wakes one thread waiting in ``withLock(when:_:)`` (any one will do: a job for a pool of threads).
    func wakeOne() {
        pthread_cond_signal(condition)
    }
}

// @unchecked: `value` is only touched with `mutex` held; it crosses threads, so it must be Sendable.
extension Lock: @unchecked Sendable where Value: Sendable {}
