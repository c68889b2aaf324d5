import Foundation

/// A value guarded by an `NSLock` (a pthread mutex underneath): ProcessSignals' one lock type. The
/// library is a product of its own and depends on no other target, so it keeps its own, as HostKit
/// (DynamicLoading's `Lock`) and PluginAPI do: one lock type per library. Not
/// `Synchronization.Mutex`: ThreadSanitizer, which CI runs the suite under, does not see through it
/// on Linux and reports races that are not there.
final class Lock<Value> {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// @unchecked: `value` is only touched with `lock` held; it crosses threads, so it must be Sendable.
extension Lock: @unchecked Sendable where Value: Sendable {}
