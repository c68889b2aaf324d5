import CDynamicLinker
import Glibc

/// The system calls that start, limit, signal and reap a child process, for ``ChildProcess``.
extension Posix {
    /// A connected pair of Unix stream sockets (or of `kind`), both close-on-exec from the start (`SOCK_CLOEXEC`: a
    /// child another thread spawns meanwhile cannot inherit them).
    package static func socketPair(type kind: __socket_type = SOCK_STREAM) throws(SystemCallError) -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        let type = Int32(kind.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw .last("socketpair") }
        return (ends[0], ends[1])
    }

    /// Whether `descriptor` is a Unix stream socket (as the one a ``ChildProcess`` is given): a child
    /// program started by hand may find another library's descriptor at that number (libdispatch's
    /// epoll, taken once the number was free), which it must not read, nor close.
    package static func isUnixStreamSocket(_ descriptor: Int32) -> Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(descriptor, SOL_SOCKET, name, &value, &size) == 0 ? value : nil
        }
        return option(SO_DOMAIN) == AF_UNIX && option(SO_TYPE) == Int32(SOCK_STREAM.rawValue)
    }

    /// `shutdown(2)` of both directions of a socket: a thread blocked reading it reads what is left,
    /// then the end; a write to it fails (`EPIPE`). The descriptor stays open. A failure (a descriptor
    /// that is no socket, or not connected) changes nothing, and is not worth a word.
    static func shutDown(_ socket: Int32) {
        _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
    }

    /// `descriptor` if it is `lowest` or above; otherwise a close-on-exec copy of it at `lowest` or
    /// above (`F_DUPFD_CLOEXEC`), the original closed.
    static func moved(_ descriptor: Int32, atLeast lowest: Int32) throws(SystemCallError) -> Int32 {
        guard descriptor < lowest else { return descriptor }
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, lowest)
        guard copy >= 0 else { throw .last("fcntl") }
        close(descriptor)
        return copy
    }

    /// `posix_spawn(3)` of the program at `path` (as given: not searched for in `PATH`), with
    /// `arguments` as its `argv` (the first is `argv[0]`) and `environment` ("NAME=value") as its whole
    /// environment. In the child: standard input reads `/dev/null`; this process's descriptor
    /// `descriptors[i]` is the child's descriptor `i + 1` (each must be above `descriptors.count`, so
    /// that no copy lands on a descriptor still to be copied); every other descriptor is closed,
    /// close-on-exec or not; every signal is at its default action and unblocked (an ignored SIGPIPE,
    /// or a mask, is otherwise inherited); the child leads a process group of its own, so a terminal's
    /// Ctrl-C reaches the host alone, which ends its children itself. Returns the child's id. glibc
    /// reports a program that cannot be run (`ENOENT`, `EACCES`, `ENOEXEC`) as the call's error, not
    /// as a child that exits.
    static func spawn(_ path: String, arguments: [String], environment: [String],
                      descriptors: [Int32]) throws(SystemCallError) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        try checked("posix_spawn_file_actions_init", posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        try checked("posix_spawnattr_init", posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }

        try checked("posix_spawn_file_actions_addopen", posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        for (index, descriptor) in descriptors.enumerated() {
            // dup2 to another number clears close-on-exec on the copy only: the parent's stays set.
            try checked("posix_spawn_file_actions_adddup2", posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(index + 1)))
        }
        try checked("posix_spawn_file_actions_addclosefrom_np", process_spawn_close_from(&actions, Int32(descriptors.count + 1)))

        var signals = sigset_t()
        sigemptyset(&signals)
        try checked("posix_spawnattr_setsigmask", posix_spawnattr_setsigmask(&attributes, &signals))
        sigfillset(&signals)
        try checked("posix_spawnattr_setsigdefault", posix_spawnattr_setsigdefault(&attributes, &signals))
        try checked("posix_spawnattr_setpgroup", posix_spawnattr_setpgroup(&attributes, 0))
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        try checked("posix_spawnattr_setflags", posix_spawnattr_setflags(&attributes, Int16(flags)))

        var process: pid_t = 0
        let result = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                // Both arrays are NUL-terminated copies, alive for the call (withCStrings frees them after).
                posix_spawn(&process, path, &actions, &attributes, argv, envp)
            }
        }
        try checked("posix_spawn", result)
        return process
    }

    /// `prlimit(2)`: sets `resource` (`RLIMIT_CPU`...) of `process` to `soft` and `hard`.
    static func setLimit(_ resource: Int32, of process: Int32, soft: UInt64, hard: UInt64) throws(SystemCallError) {
        try checked("prlimit", process_set_limit(process, resource, soft, hard))
    }

    /// `kill(2)`: sends `signal` to `process`; false if it could not (`ESRCH`, `EPERM`).
    @discardableResult
    static func send(_ signal: Int32, to process: Int32) -> Bool {
        Glibc.kill(process, signal) == 0
    }

    /// Blocks until the child `process` has ended, without reaping it (`waitid(2)` with `WNOWAIT`): it
    /// stays a zombie, so its id cannot be given to another process until ``reap(_:)``.
    static func awaitEnd(of process: Int32) throws(SystemCallError) {
        var info = siginfo_t()
        _ = try retrying("waitid") { waitid(P_PID, id_t(process), &info, WEXITED | WNOWAIT) }
    }

    /// Whether the child `process` has ended, without waiting and without reaping it: a child that
    /// cannot be asked about (an error) counts as ended.
    static func hasEnded(_ process: Int32) -> Bool {
        var info = siginfo_t()
        guard (try? retrying("waitid", { waitid(P_PID, id_t(process), &info, WEXITED | WNOHANG | WNOWAIT) })) != nil else { return true }
        // WNOHANG leaves the id zero while the child runs.
        return info._sifields._kill.si_pid != 0
    }

    /// Reaps the child `process` (`wait4(2)`, blocking until it ends): its wait status and the
    /// resources it used. Its id is free for the system to reuse from then on.
    static func reap(_ process: Int32) throws(SystemCallError) -> (status: Int32, usage: rusage) {
        var status: Int32 = 0
        var usage = rusage()
        _ = try retrying("wait4") { wait4(process, &status, 0, &usage) }
        return (status, usage)
    }

    /// The abbreviation of `signal` with its `SIG` ("SIGKILL"), or nil for a number that names none.
    static func signalAbbreviation(_ signal: Int32) -> String? {
        process_signal_abbreviation(signal).map { "SIG" + String(cString: $0) }
    }

    /// Throws `result` as the error of `call` unless it is 0 (the posix_spawn family and the shims
    /// return their error number instead of setting `errno`).
    private static func checked(_ call: StaticString, _ result: Int32) throws(SystemCallError) {
        guard result == 0 else { throw SystemCallError(call: call, code: result) }
    }

    /// Runs `body` with NUL-terminated C copies of `strings`, followed by a null pointer (as `argv` and
    /// `envp` are), freed when it returns. The copies are `strdup`'s; one it could not make is `ENOMEM`.
    private static func withCStrings(_ strings: [String],
                                     _ body: ([UnsafeMutablePointer<CChar>?]) -> Int32) -> Int32 {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        guard copies.allSatisfy({ $0 != nil }) else { return ENOMEM }
        return body(copies + [nil])
    }
}
