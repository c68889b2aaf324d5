internal import CStackPosition

/// Whether the calling thread has stack enough left to make one more service: a path of sync
/// factories nested deeper than the thread's stack allows is refused with a named error
/// (``ServiceLocatorError/resolutionTooDeep(key:depth:)``) instead of overflowing it.
///
/// It compares where the stack stands (a C function's frame address: a Swift local may live on a
/// side stack under AddressSanitizer) with the thread's own stack bounds, asked of the system once
/// per thread (`pthread_getattr_np`), so every thread is covered whatever its stack size:
/// the main thread, Swift's and Dispatch's pools, a thread made with a stack of its own.
enum StackHeadroom {
    /// True if less than the reserve is left: a quarter of the thread's stack, at least 128 KiB and
    /// at most 2 MiB, for the frames of the factory that would run next and of what it calls.
    static var isExhausted: Bool {
        let size = UInt(stack_size_of_thread())
        guard size != 0 else { return false }
        return !hasLeft(min(max(size / 4, 128 << 10), 2 << 20))
    }

    /// True if at least `bytes` of the calling thread's stack are left, or its bounds are unknown.
    static func hasLeft(_ bytes: UInt) -> Bool {
        let low = UInt(stack_low_bound())
        guard low != 0, stack_size_of_thread() != 0 else { return true }
        let now = UInt(stack_position())
        return now >= low && now - low >= bytes
    }
}
