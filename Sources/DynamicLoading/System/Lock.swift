import Foundation

/// A value guarded by an `NSLock` (a pthread mutex underneath): HostKit's lock. Not
/// `Synchronization.Mutex`: ThreadSanitizer, which CI runs the suite under, does not see through it
/// on Linux and reports races that are not there.
package final class Lock<Value> {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, the lock held.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Lock where Value == Void {
    /// Runs `body` with the lock held: a lock that guards a section (one load at a time), not a value.
    /// No `inout ()` is taken: ThreadSanitizer put that access of no bytes at the lock's own address
    /// and reported it racing with another thread's read there, each under the lock.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

// @unchecked: `value` is only touched with `lock` held; it crosses threads, so it must be Sendable.
extension Lock: @unchecked Sendable where Value: Sendable {}
