internal import CStackPosition
import Glibc

/// Where a thread's stack stood when it began making the outermost service of a resolution path, so
/// that a path of sync factories nested deeper than the thread's stack allows is refused with a
/// named error (``ServiceLocatorError/resolutionTooDeep(key:depth:)``) instead of a crash.
///
/// Stacks grow down on every platform Swift runs on: the bytes a path has used are its base minus
/// where the stack stands now (`stack_position`, in the C target `CStackPosition`). A mark belongs to one thread; a task started inside a
/// factory, on another thread, begins a mark of its own.
struct StackMark: Sendable {
    let base: UInt
    let thread: pthread_t

    /// How much stack one resolution path may use: half the size new threads get (RLIMIT_STACK, as
    /// glibc gives it to the main thread and to threads made without a size), at most 4 MiB, and
    /// 4 MiB when it is unlimited. The other half is for the innermost factory's own frames. A thread
    /// made with a smaller stack is not covered (README, "Cycles and depth").
    static let budget: UInt = {
        var limit = rlimit()
        // RLIM_INFINITY is all bits set; Glibc's module spells it as a literal that does not fit.
        guard getrlimit(Int32(RLIMIT_STACK.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 4 << 20 }
        return UInt(min(limit.rlim_cur / 2, 4 << 20))
    }()

    /// The mark for a service made now below `parent`: the parent's, if it is on this thread.
    static func here(below parent: StackMark?) -> StackMark {
        let thread = pthread_self()
        if let parent, pthread_equal(parent.thread, thread) != 0 { return parent }
        return StackMark(base: address(), thread: thread)
    }

    /// True if this thread has used more than ``budget`` bytes of stack since the mark.
    var isExhausted: Bool {
        guard pthread_equal(thread, pthread_self()) != 0 else { return false }
        let now = Self.address()
        return base > now && base - now > Self.budget
    }

    /// Where this thread's stack stands: the frame address of a C function called from here (the
    /// address of a Swift local would not do: AddressSanitizer moves locals to side stacks).
    private static func address() -> UInt {
        UInt(stack_position())
    }
}
