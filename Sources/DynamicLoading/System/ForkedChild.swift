import CDynamicLinker
import Dispatch
import Glibc

/// A child a ``Zygote`` forked, as the host holds it: a pidfd (signals reach that process, never
/// one that got its id after it was reaped), and the zygote's word of how it ended, given once.
///
/// Invariants: the pidfd is open until ``close()``, which ``ChildProcess``'s waiter calls under the
/// lock ``send(_:)``'s callers take, once the end is known; the word is given at most once (a
/// second is ignored): by the zygote's report, or nil once the zygote is gone.
final class ForkedChild: Sendable {
    /// How it ended, as its zygote reaped it.
    struct Word: Sendable {
        let status: Int32
        let cpuTime: Duration
    }

    let pid: Int32
    private let pidfd: Int32
    /// `.some(nil)`: no word will come (the zygote is gone).
    private let word = Lock<Word??>(nil)
    private let given = DispatchSemaphore(value: 0)

    init(pid: Int32, pidfd: Int32) {
        self.pid = pid
        self.pidfd = pidfd
    }

    /// Gives the word of its end (nil: none will come); only the first counts.
    func give(_ end: Word?) {
        let first = word.withLock { word in
            guard word == nil else { return false }
            word = .some(end)
            return true
        }
        if first { given.signal() }
    }

    /// Blocks until the word is given; without one (the zygote gone), until the process has ended
    /// (its pidfd readable), and nil.
    func awaitEnd() -> Word? {
        given.wait()
        if let known = word.withLock({ $0 }), let known { return known }
        var watched = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        while poll(&watched, 1, -1) < 0 && errno == EINTR {}
        return nil
    }

    /// Sends `signal` through the pidfd (caller: under the watch's lock, before ``close()``).
    func send(_ signal: Int32) {
        _ = process_pidfd_send_signal(pidfd, signal)
    }

    /// Whether the process has ended (its pidfd is readable), reaped or not.
    var hasEnded: Bool {
        var watched = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, 0) != 0
    }

    /// Closes the pidfd (once the end is known).
    func close() {
        Posix.close(pidfd)
    }
}
