import Dispatch
import Foundation
import Glibc

/// One child process of the host: started with `posix_spawn`, limited with `prlimit`, watched by two
/// threads of its own, ended with a signal, reaped exactly once. It knows nothing of plugins: it runs
/// a program with a socket to talk over, and says how the program ended and what it last wrote.
///
/// Invariants:
/// - **Descriptors.** Every descriptor made for the child is close-on-exec from its creation
///   (`SOCK_CLOEXEC`), so a child another thread spawns meanwhile inherits none; and the spawn closes
///   in the child every descriptor from 4 up, close-on-exec or not, so the child has exactly 0
///   (`/dev/null`), 1 and 2 (the output socket) and 3 (its end of the socket pair, ``socketDescriptor``).
///   The parent closes its copies of the child's ends right after the spawn. It keeps two: ``socket``
///   and the read end of the output, both owned here; a failed spawn closes all four before it throws.
/// - **One reap.** The waiter thread waits for the child to end without reaping it (`waitid` with
///   `WNOWAIT`), then reaps it (`wait4`) under the same lock ``kill(_:)`` takes to signal: so a signal
///   is only ever sent to a child not yet reaped, whose id no other process can have. No other code in
///   the host may reap it (no `waitpid(-1)`, SIGCHLD not ignored); if something does, the ending is
///   unknown (`.exited(-1)`).
/// - **The end, in order.** Once reaped: the output is shut down, which lets the reader thread read
///   what the child left, then end, even while a grandchild holds the other end (so the output is a
///   socket pair, not a pipe, whose read end cannot be shut down); the waiter waits for the reader and
///   closes the output. Then ``socket`` is shut down (a thread still reading it sees the end of the
///   stream, a write fails with `EPIPE`), `onEnd` is called once, with every line the child wrote
///   already in ``lastOutputLines``, and only when it has returned is ``socket`` closed: `onEnd` is
///   where its user stops using the descriptor (waits for its own reader and writers) before the
///   number can be given to another file. Then ``waitForEnd()`` returns. Nothing is left: no zombie,
///   no descriptor, no thread, whatever the order of kill, end and release.
/// - **Release ends it.** Releasing the last reference to a child still running kills it (SIGKILL); the
///   waiter still reaps it and calls `onEnd`. (A closure given here that holds the ``ChildProcess``
///   keeps it until the end; the closures are let go after their last call.)
/// - **Limits first.** ``spawn(executable:arguments:environment:limits:onOutput:onEnd:)`` sets the
///   ``Limits`` before it returns, so before the host sends anything on ``socket``: a child program that
///   waits for its first request on descriptor 3 before it loads any plugin never runs plugin code
///   unlimited. (What runs before the limits is the program's own start, up to that first read: the
///   host's code, not a plugin's.)
/// - **Writes.** Whoever writes to ``socket`` must write with `MSG_NOSIGNAL` (`send`, not `write`): a
///   write after the child's end would otherwise raise SIGPIPE, which ends the host. (The actor system's
///   connection does.) The child's output is drained as it comes, so a child that writes much never
///   blocks on it.
/// - The child leads a process group of its own (a terminal's Ctrl-C reaches the host alone, which
///   stops its children itself), with every signal at its default action and none blocked.
package final class ChildProcess: Sendable {
    /// The child's end of the socket pair is this descriptor in the child.
    package static let socketDescriptor: Int32 = 3

    /// What its threads share: the ``ChildProcess`` itself is not theirs, so that releasing it ends the child.
    let watch: Watch

    /// The child's process id. Once the child is reaped the system may give it to another process:
    /// signal the child through ``kill(_:)`` only.
    package var pid: Int32 { watch.pid }

    /// The parent's end of the Unix stream socket pair (the child's end is its descriptor 3). Owned by
    /// the ``ChildProcess``: shut down once the child is reaped, closed after `onEnd` returns.
    package var socket: Int32 { watch.socket }

    /// The limits the child was started with.
    package var limits: Limits { watch.limits }

    init(watch: Watch) {
        self.watch = watch
    }

    deinit {
        watch.kill(SIGKILL)
    }

    /// Starts `executable` (a path, not searched for in `PATH`) with `arguments` and `environment`
    /// (added to the host's, its values winning, if `inheritingEnvironment`), a Unix stream socket pair between them (the
    /// parent's end ``socket``, the child's its descriptor 3), standard input from `/dev/null`, standard
    /// output and error into one stream the host drains, whose last lines ``lastOutputLines`` keeps and
    /// each of which goes to `onOutput` (on the reader thread, as they come; it must not wait for the end).
    /// Sets `limits` before it returns. `onEnd` is called once, on the waiter thread, when the child
    /// has ended and been reaped, with ``socket`` still open (see the type's invariants). `name` is the
    /// child's `argv[0]`, what `ps` shows it as (`executable` if nil). The socket pair is of
    /// `socketType` (a ``Zygote``'s: `SOCK_SEQPACKET`).
    package static func spawn(executable: String, name: String? = nil, arguments: [String], environment: [String: String],
                              inheritingEnvironment: Bool = true, limits: Limits, socketType: __socket_type = SOCK_STREAM,
                              onOutput: (@Sendable (String) -> Void)?,
                              onEnd: @escaping @Sendable (Ending) -> Void) throws(ChildProcessError) -> ChildProcess {
        let variables = try commandLineEnvironment(environment, inheriting: inheritingEnvironment)
        let argv0 = name ?? executable
        for (what, text) in [("program path", executable), ("program name", argv0)] + arguments.map({ ("argument", $0) })
            where text.utf8.contains(0) {
            throw .unusableText(what: what, text: text)
        }
        var opened = OpenedDescriptors()
        let pid: Int32, socket: Int32, output: Int32
        do throws(SystemCallError) {
            let (parentSocket, childSocket) = opened.keep(try Posix.socketPair(type: socketType))
            let (parentOutput, childOutput) = opened.keep(try Posix.socketPair())
            // The child's descriptors 1 to 3 are made from these: none of them may be one of 1 to 3.
            let outputEnd = opened.replace(childOutput, with: try Posix.moved(childOutput, atLeast: 4))
            let socketEnd = opened.replace(childSocket, with: try Posix.moved(childSocket, atLeast: 4))
            pid = try Posix.spawn(executable, arguments: [argv0] + arguments, environment: variables,
                                  descriptors: [outputEnd, outputEnd, socketEnd])
            opened.close(outputEnd)
            opened.close(socketEnd)
            (socket, output) = (parentSocket, parentOutput)
        } catch {
            opened.closeAll()
            throw .cannotStart(executable: executable, error)
        }
        do {
            try limits.apply(to: pid)
        } catch {
            Posix.send(SIGKILL, to: pid)
            _ = try? Posix.reap(pid)
            opened.closeAll()
            throw error
        }
        let watch = Watch(pid: pid, socket: socket, output: output, limits: limits, onOutput: onOutput, onEnd: onEnd)
        watch.start()
        return ChildProcess(watch: watch)
    }

    /// Sends `signal` (SIGKILL unless told) to the child, if it has not been reaped yet; otherwise does
    /// nothing (its id may be another process's by then).
    package func kill(_ signal: Int32 = SIGKILL) {
        watch.kill(signal)
    }

    /// Whether the child has ended (a zombie counts), whether or not its end was handled yet.
    package var hasEnded: Bool {
        watch.hasEnded
    }

    /// The last lines the child wrote to its standard output and error (up to 20, each cut at 1024
    /// bytes), oldest first, raw: whoever prints them escapes them. Complete once the child has ended.
    package var lastOutputLines: [String] {
        watch.tail.withLock { $0.lines }
    }

    /// Blocks until the child has ended, been reaped, `onEnd` has returned and its descriptors are
    /// closed; returns how it ended. Called from `onEnd` itself, returns the ending at once. Not from
    /// `onOutput`, which the end waits for.
    package func waitForEnd() -> Ending {
        watch.waitForEnd()
    }

    /// `added`, put in the host's environment if `inheriting`, as "NAME=value" entries; a name or value
    /// the system cannot take is thrown.
    static func commandLineEnvironment(_ added: [String: String], inheriting: Bool) throws(ChildProcessError) -> [String] {
        for (name, value) in added {
            if name.isEmpty || name.utf8.contains(UInt8(ascii: "=")) || name.utf8.contains(0) {
                throw .unusableText(what: "environment variable name", text: name)
            }
            if value.utf8.contains(0) { throw .unusableText(what: "value of environment variable \(name)", text: value) }
        }
        let base = inheriting ? ProcessInfo.processInfo.environment : [:]
        return base.merging(added) { _, new in new }.map { "\($0.key)=\($0.value)" }.sorted()
    }
}

/// The descriptors a spawn made so far, closed all at once if it fails.
private struct OpenedDescriptors {
    private var descriptors: Set<Int32> = []

    /// Records the two ends of a pair just made, and returns them.
    mutating func keep(_ ends: (Int32, Int32)) -> (Int32, Int32) {
        descriptors.formUnion([ends.0, ends.1])
        return ends
    }

    /// Records that `old` became `new` (``Posix/moved(_:atLeast:)`` closed `old` if they differ).
    mutating func replace(_ old: Int32, with new: Int32) -> Int32 {
        descriptors.remove(old)
        descriptors.insert(new)
        return new
    }

    /// Closes `descriptor` now.
    mutating func close(_ descriptor: Int32) {
        if descriptors.remove(descriptor) != nil { Posix.close(descriptor) }
    }

    /// Closes every descriptor recorded.
    mutating func closeAll() {
        descriptors.forEach(Posix.close)
        descriptors.removeAll()
    }
}
