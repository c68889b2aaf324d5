import Glibc

/// Where threads sleep while another thread makes the singleton they want.
///
/// A singleton core waits on an atomic phase, not a mutex of its own; the mutex and condition variable for the rare wait
/// are shared, picked by the core's address from a fixed set. That saves a mutex per slot (about
/// 100 bytes with its object). A waiter woken for another core of its stripe checks its own
/// condition again and sleeps on, so it still waits only for its own service.
enum WaitStripes {
    private static let count = 64
    // nonisolated(unsafe): set up once, then used only through pthread calls, which synchronize.
    nonisolated(unsafe) private static let mutexes = table(pthread_mutex_t()) { pthread_mutex_init($0, nil) }
    nonisolated(unsafe) private static let conditions = table(pthread_cond_t()) { pthread_cond_init($0, nil) }

    /// `count` values at fixed addresses (pthread objects must not move), each set up by `setUp`.
    private static func table<Value>(_ blank: Value, _ setUp: (UnsafeMutablePointer<Value>) -> Int32)
        -> UnsafeMutablePointer<Value> {
        let values = UnsafeMutablePointer<Value>.allocate(capacity: count)
        values.initialize(repeating: blank, count: count)
        for index in 0..<count { _ = setUp(values + index) }
        return values
    }

    private static func stripe(_ object: AnyObject) -> Int {
        // Objects are 16-byte aligned: skip the bits that are always zero.
        Int(bitPattern: UInt(bitPattern: ObjectIdentifier(object).hashValue) >> 4) & (count - 1)
    }

    /// Sleeps until `isDone` is true. `isDone` reads state that ``wake(_:)``'s caller changed first.
    static func wait(for object: AnyObject, until isDone: () -> Bool) {
        let index = stripe(object)
        pthread_mutex_lock(mutexes + index)
        while !isDone() { pthread_cond_wait(conditions + index, mutexes + index) }
        pthread_mutex_unlock(mutexes + index)
    }

    /// Wakes the threads waiting for `object`. Call it after changing what their `isDone` reads:
    /// a waiter checks under the stripe's mutex, so it either sees the change or is asleep by now.
    static func wake(_ object: AnyObject) {
        let index = stripe(object)
        pthread_mutex_lock(mutexes + index)
        pthread_cond_broadcast(conditions + index)
        pthread_mutex_unlock(mutexes + index)
    }
}
