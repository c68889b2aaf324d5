import Glibc

/// The one place in the package that installs signal handlers (`sigaction(2)`), the handler itself,
/// and the other system calls of the relay (its pipe, its thread's signal mask, raising a signal).
/// Everything unsafe about signals is here; its invariants:
///
/// - The handler is async-signal-safe: it calls `write(2)` on ``writeEnd`` and nothing else (no
///   allocation, no lock, no Swift runtime call that could take one), and puts `errno` back as it
///   found it for the code it interrupted.
/// - It never blocks: ``writeEnd`` is non-blocking, so a full pipe (the relay thread 64 KiB behind)
///   drops that signal's byte instead of hanging the interrupted thread.
/// - ``writeEnd`` is written once, by ``openPipe()``, before any handler that reads it is installed
///   (``SignalRelay`` opens the pipe in its `init`, and installs handlers only after), and only read
///   after that: no handler ever reads it while it changes, nor runs its lazy initialization (done
///   by that first write), so the handler's read is a plain load.
/// - A signal's number fits the byte written: Linux numbers signals below 65; 0 is not a signal and
///   means "wake up" to the relay thread.
enum SignalHandler {
    /// The pipe's write end, read by the handler (which can use nothing else).
    /// `nonisolated(unsafe)`: written once before any handler is installed, only read after (above).
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Makes the pipe the handler writes into and returns its read end (-1 if the system gave no
    /// pipe: then no signal is ever relayed). Both ends are close-on-exec (no child process
    /// inherits them); the write end is non-blocking. Called once, before any ``install(_:)``.
    static func openPipe() -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return -1 }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        writeEnd = ends[1]
        return ends[0]
    }

    /// Installs the handler for `number`, with `SA_RESTART` (interrupted calls resume); returns the
    /// action it replaced, or nil if `sigaction` refused (a signal that cannot be caught).
    static func install(_ number: Int32) -> sigaction? {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = relay
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        return exchange(number, action)
    }

    /// Gives `number` the action `former` (one ``install(_:)`` returned) back.
    static func restore(_ number: Int32, _ former: sigaction) {
        _ = exchange(number, former)
    }

    /// Writes a byte the handler would not (a 0) into the pipe, to wake the relay thread.
    static func wake() {
        var zero: UInt8 = 0
        _ = write(writeEnd, &zero, 1)
    }

    /// The next byte from the pipe's read end (`read(2)`, made again on `EINTR`); nil once the pipe
    /// cannot be read.
    static func nextByte(from readEnd: Int32) -> UInt8? {
        var byte: UInt8 = 0
        while readEnd >= 0 {
            let count = read(readEnd, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
        return nil
    }

    /// Sends `number` to this process again (`raise(3)`), once it has its former action back.
    static func raise(_ number: Int32) {
        _ = Glibc.raise(number)
    }

    /// Unblocks `numbers` in the calling thread (`pthread_sigmask(3)`, which cannot fail for
    /// `SIG_UNBLOCK` and a valid set).
    static func unblock(_ numbers: some Sequence<Int32>) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The handler, a C function pointer without captures: see the invariants above.
    private static let relay: @convention(c) (Int32) -> Void = { number in
        let saved = errno
        var byte = UInt8(truncatingIfNeeded: number)
        _ = write(SignalHandler.writeEnd, &byte, 1)
        errno = saved
    }

    /// `sigaction(2)`: gives `number` the action `action`; returns the one it replaced.
    private static func exchange(_ number: Int32, _ action: sigaction) -> sigaction? {
        var action = action
        var previous = sigaction()
        return changeAction(number, &action, &previous) == 0 ? previous : nil
    }
}

// `Glibc.sigaction(...)` names the struct: the call is made here, where the bare name finds the function.
private func changeAction(_ number: Int32, _ action: inout sigaction, _ previous: inout sigaction) -> Int32 {
    sigaction(number, &action, &previous)
}
