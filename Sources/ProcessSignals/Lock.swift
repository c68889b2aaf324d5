import Foundation

/// A value guarded by an `NSLock` (a pthread mutex underneath): the one lock type of this package's
/// Swift libraries (HostKit's `Lock` is this one). It lives here, in the target that depends on no
/// other, so that every target of the package can use it; `package`, so it is no one else's promise.
/// Not `Synchronization.Mutex`: ThreadSanitizer, which CI runs the suite under, does not see through
/// it on Linux and reports races that are not there.
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

// @unchecked: `value` is only touched with `lock` held; it crosses threads, so it must be Sendable.
extension Lock: @unchecked Sendable where Value: Sendable {}
