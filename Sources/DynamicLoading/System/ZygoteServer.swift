import CDynamicLinker
import Foundation
import Glibc

/// The zygote's side of a ``Zygote``: a process of the child program, started by the host with its
/// libraries mapped and bound, warmed by the paths a child takes first, that forks a child each time
/// the host asks. It runs on one thread and never starts another (a fork copies only the thread
/// that calls it: a lock another thread held would stay held in the child forever), and runs no
/// plugin code: each child enters its own sandbox, and loads its plugin, after the fork.
///
/// Invariants:
/// - **One thread.** Checked before each fork (`/proc/self/task`); with more, the zygote says why it
///   is refused and ends, and the host starts its children itself.
/// - **Its children are its own to reap.** It watches each through a pidfd, reaps it when it ends
///   (`wait4` of that id only) and tells the host how; it passed the host a pidfd of the child, so
///   the host signals the child without racing the reap. Each child dies with the zygote
///   (`PR_SET_PDEATHSIG`), if the zygote is killed; once the host closes the connection (or is
///   gone), the zygote forks no more and ends after its last child (each ends with its own
///   connection to the host).
/// - **A child starts as a spawned one does** (``ChildProcess``'s invariants): descriptors 0
///   (`/dev/null`), 1 and 2 (its output), 3 (its socket) and no other; every signal at its default
///   action, none blocked; a process group of its own; its limits set, by itself, before it returns
///   from ``serve(warmUp:)`` (so before it reads its socket); its environment the host's request.
package enum ZygoteServer {
    /// The variable that makes the child program a zygote.
    package static let variable = "SWIFT_PLUGIN_ZYGOTE"

    /// Serves the host on descriptor 3 (a `SOCK_SEQPACKET` socket) once `warmUp` ran: returns in
    /// each forked child, set up as a child the host spawned (then the caller serves as one), and
    /// ends the process once the host closed the connection and every child it forked has ended.
    package static func serve(warmUp: () -> Void) {
        let control = ChildProcess.socketDescriptor
        warmUp()
        if let reason = threadsProblem() ?? systemProblem() {
            ZygoteMessage.refused(reason: reason).send(on: control)
            _exit(3)
        }
        guard ZygoteMessage.ready.send(on: control) else { _exit(0) }
        var children: [(pid: Int32, pidfd: Int32)] = []
        var buffer: [UInt8] = []
        // Once the host has no more to ask (it shut down its writing end, or is gone), or the zygote
        // cannot fork safely any more, it reports its children's ends until they are all gone, then
        // ends: never before them, which die with it.
        var asking = true
        while asking || !children.isEmpty {
            // A descriptor below 0 is not watched.
            var watched = [pollfd(fd: asking ? control : -1, events: Int16(POLLIN), revents: 0)]
                + children.map { pollfd(fd: $0.pidfd, events: Int16(POLLIN), revents: 0) }
            if (try? Posix.retrying("poll", { poll(&watched, nfds_t(watched.count), -1) })) == nil {
                // Nothing to wait with: its children are reaped as they end, blocking.
                asking = false
                for child in children { report(child.pid, on: control) }
                break
            }
            for (index, child) in children.enumerated().reversed() where watched[index + 1].revents != 0 {
                report(child.pid, on: control)
                Posix.close(child.pidfd)
                children.remove(at: index)
            }
            guard asking, watched[0].revents != 0 else { continue }
            guard let (message, descriptors) = ZygoteMessage.receive(from: control, into: &buffer) else {
                asking = false
                continue
            }
            guard case let .fork(request) = message, descriptors.count == 2 else {
                descriptors.forEach(Posix.close)
                if case let .fork(request) = message {
                    ZygoteMessage.failed(reason: "the request came without the child's two descriptors", request: request.number)
                        .send(on: control)
                }
                continue
            }
            if let reason = threadsProblem() {
                descriptors.forEach(Posix.close)
                ZygoteMessage.refused(reason: reason).send(on: control)
                asking = false
                continue
            }
            switch fork(request, socket: descriptors[0], output: descriptors[1], control: control) {
            case .child: return
            case let .forked(child): children.append(child)
            case .none: continue
            }
        }
        _exit(0)
    }

    /// Forks the child `request` asks for (returns in the child, set up), and tells the host: its id
    /// and a pidfd of it, or why there is none.
    private enum Forked {
        /// This is the child, set up.
        case child
        /// This is the zygote, and the child it forked.
        case forked((pid: Int32, pidfd: Int32))
    }

    private static func fork(_ request: ZygoteForkRequest, socket: Int32, output: Int32, control: Int32) -> Forked? {
        var isChild = false
        // The zygote's copies (the child's are its descriptors 1 to 3 by then).
        defer {
            if !isChild {
                Posix.close(socket)
                Posix.close(output)
            }
        }
        let failed = { (reason: String) in _ = ZygoteMessage.failed(reason: reason, request: request.number).send(on: control) }
        // Closed by the child once it is set up (or by its end): the host hears of it then, as a
        // spawn returns once its child is limited.
        let settled: (read: Int32, write: Int32)
        do {
            settled = try Posix.pipe()
        } catch {
            failed("\(error)")
            return nil
        }
        let parent = getpid()
        let pid = Glibc.fork()
        let forkError = errno
        if pid == 0 {
            isChild = true
            Posix.close(settled.read)
            become(request, socket: socket, output: output, parent: parent, settled: settled.write)
            return .child
        }
        Posix.close(settled.write)
        guard pid > 0 else {
            Posix.close(settled.read)
            failed("fork failed: \(String(cString: strerror(forkError)))")
            return nil
        }
        var byte: UInt8 = 0
        while Glibc.read(settled.read, &byte, 1) < 0 && errno == EINTR {}
        Posix.close(settled.read)
        let pidfd = process_pidfd_open(pid)
        guard pidfd >= 0 else {
            Posix.send(SIGKILL, to: pid)
            _ = try? Posix.reap(pid)
            failed("pidfd_open failed: \(String(cString: strerror(-pidfd)))")
            return nil
        }
        ZygoteMessage.forked(pid: pid, request: request.number).send(on: control, descriptors: [pidfd])
        return .forked((pid, pidfd))
    }

    /// Reaps the ended child `pid` and tells the host how it ended.
    private static func report(_ pid: Int32, on control: Int32) {
        guard let (status, usage) = try? Posix.reap(pid) else { return }
        ZygoteMessage.ended(pid: pid, status: status,
                            userMicroseconds: Int64(usage.ru_utime.tv_sec) * 1_000_000 + Int64(usage.ru_utime.tv_usec),
                            systemMicroseconds: Int64(usage.ru_stime.tv_sec) * 1_000_000 + Int64(usage.ru_stime.tv_usec))
            .send(on: control)
    }

    /// Why this system cannot serve a zygote: a system call it needs is missing (`close_range`,
    /// Linux 5.9; `pidfd_open`, 5.3; `pidfd_send_signal`, 5.1) or refused (a container's seccomp
    /// profile). Nil if each answers.
    private static func systemProblem() -> String? {
        let unused = process_close_range(Int32.max - 1, Int32.max - 1)
        if unused != 0 { return "close_range is not available: \(String(cString: strerror(unused)))" }
        let own = process_pidfd_open(getpid())
        guard own >= 0 else { return "pidfd_open is not available: \(String(cString: strerror(-own)))" }
        defer { Posix.close(own) }
        let signalled = process_pidfd_send_signal(own, 0)
        return signalled == 0 ? nil : "pidfd_send_signal is not available: \(String(cString: strerror(signalled)))"
    }

    /// Why this process may not fork: another thread runs, or will in the child. Nil with one.
    private static func threadsProblem() -> String? {
        if let reason = Zygote.unforkableBuild { return reason }
        let entries = (try? Posix.directoryEntries("/proc/self/task")) ?? []
        let threads = entries.filter { $0 != Array(".".utf8) && $0 != Array("..".utf8) }.count
        return threads == 1 ? nil : "it runs \(threads) threads (one is safe to fork)"
    }

    /// In the forked child: the descriptors, signals, group, limits, environment and name of a child
    /// the host spawned, as `request` asks. Ends the child if any of it fails (it wrote why).
    private static func become(_ request: ZygoteForkRequest, socket: Int32, output: Int32, parent: Int32, settled: Int32) {
        // On any failure the child ends: its end closes `settled` too. Its output is `output` until
        // it is descriptor 2.
        var errors = output
        func fail(_ what: String, _ code: Int32) -> Never {
            let line = "the zygote's child could not \(what): \(String(cString: strerror(code)))\n"
            _ = line.withCString { Glibc.write(errors, $0, strlen($0)) }
            _exit(127)
        }
        // Dead with the zygote: nothing else would end it once the zygote is gone.
        let orphan = process_die_with_parent(parent)
        if orphan != 0 { _exit(127) }
        let null = open("/dev/null", O_RDONLY)
        guard null >= 0 else { fail("open /dev/null", errno) }
        for (from, to) in [(null, Int32(0)), (output, 1), (output, 2), (socket, ChildProcess.socketDescriptor)]
            where dup2(from, to) < 0 {
            fail("set up its descriptors", errno)
        }
        errors = 2
        // Every descriptor but these four and `settled`, closed last.
        let kept = ChildProcess.socketDescriptor + 1
        let closed = settled > kept ? process_close_range(kept, settled - 1) : 0
        let rest = process_close_from(max(kept, settled + 1))
        if closed != 0 || rest != 0 { fail("close the zygote's descriptors", closed != 0 ? closed : rest) }
        var signals = sigset_t()
        sigemptyset(&signals)
        sigprocmask(SIG_SETMASK, &signals, nil)
        // A handler of the zygote's is not the child's: each goes back to its default. An ignored
        // signal stays ignored, as across an `exec` (the `host` command ignores SIGPIPE as it starts,
        // so a spawned child of it does too). 64 signals on Linux (glibc keeps two, and refuses to
        // change those).
        for signal in Int32(1)..<65 where signal != SIGKILL && signal != SIGSTOP {
            if process_signal_is_ignored(signal) == 0 { Glibc.signal(signal, SIG_DFL) }
        }
        if setpgid(0, 0) != 0 { fail("lead a process group of its own", errno) }
        for limit in request.limits {
            let refused = process_set_own_limit(limit.resource, limit.soft, limit.hard)
            if refused != 0 { fail("set its limit \(limit.resource) to \(limit.soft)", refused) }
        }
        clearenv()
        for entry in request.environment {
            // Kept for the process's life: putenv uses the string itself.
            _ = putenv(strdup(entry))
        }
        _ = process_set_name(String(request.threadName.utf8.prefix(15)) ?? "plugin")
        rename(to: request.name)
        if settled != socket && settled > ChildProcess.socketDescriptor { Posix.close(settled) }
    }

    /// Writes `name` over `argv[0]` (what `/proc/self/cmdline`, so `ps`, shows), cut to its length,
    /// the rest of it zeros: the zygote's own `argv[0]` is long enough for a child's name (a host
    /// starts it with room, ``Zygote/nameRoom``).
    private static func rename(to name: String) {
        guard let first = CommandLine.unsafeArgv[0] else { return }
        let room = strlen(first)
        let bytes = Array(name.utf8.prefix(room))
        bytes.withUnsafeBufferPointer { source in
            // An empty name has no bytes to copy (nor an address).
            if let start = source.baseAddress { UnsafeMutableRawPointer(first).copyMemory(from: start, byteCount: source.count) }
        }
        memset(first + bytes.count, 0, room - bytes.count)
    }
}
