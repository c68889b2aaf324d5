import CSandbox
import Glibc

/// One rule of a plugin process's seccomp filter: system calls that fail with ``error``, always or
/// when an argument says so, and why no plugin needs them. The filter is these rules, in order
/// (``SeccompFilter``); every other call is allowed.
package struct SystemCallRule: Sendable {
    /// When an argument decides: its low 32 bits (every argument checked here is an `int` or flags
    /// the kernel reads as one), masked.
    package enum Condition: Sendable {
        /// The call always fails.
        case always
        /// It fails when `argument & mask == value`.
        case argumentMatches(index: Int, mask: UInt32, value: UInt32)
        /// It fails unless `argument & mask` is one of `values`.
        case argumentIsNoneOf(index: Int, mask: UInt32, values: [UInt32])
    }

    /// The calls, by name (a name this architecture lacks is skipped: it has no such call to make).
    package let calls: [String]
    package let condition: Condition
    /// The `errno` they fail with.
    package let error: Int32
    /// Why: what the call would reach, that no plugin needs.
    package let reason: String

    init(_ calls: [String], _ condition: Condition = .always, error: Int32 = EPERM, because reason: String) {
        self.calls = calls
        self.condition = condition
        self.error = error
        self.reason = reason
    }

    /// The calls a serving process makes most (reading and writing its socket, waiting, its threads'
    /// locks, memory it frees), none of which a rule refuses: the filter allows them before it reads
    /// any rule, so that a call costs the few instructions of this list, not the whole filter's.
    package static let frequent = ["futex", "read", "write", "recvmsg", "sendmsg", "recvfrom", "sendto", "epoll_wait",
                                   "epoll_pwait", "ppoll", "poll", "readv", "writev", "pread64", "pwrite64", "close", "nanosleep",
                                   "clock_nanosleep", "sched_yield", "madvise", "munmap", "mprotect", "brk", "getpid", "gettid",
                                   "rt_sigprocmask", "eventfd2", "timerfd_settime"]

    /// The rules for a process with `policy`, whose own process id is `pid`.
    package static func policy(_ policy: SandboxPolicy, pid: Int32) -> [SystemCallRule] {
        var rules = [
            SystemCallRule(["ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "pidfd_open"],
                           because: "another process's memory, registers and descriptors"),
            SystemCallRule(["mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
                            "fsmount", "fspick", "mount_setattr", "unshare", "setns"],
                           because: "what file systems and namespaces it sees: the sandbox's, fixed at spawn"),
            SystemCallRule(["keyctl", "add_key", "request_key"], because: "the kernel's keyrings: other processes' secrets"),
            SystemCallRule(["bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register"],
                           because: "kernel programs, counters of other processes, and calls that bypass this filter (io_uring)"),
            SystemCallRule(["kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
                            "swapon", "swapoff", "acct", "quotactl", "settimeofday", "clock_settime", "clock_adjtime",
                            "adjtimex", "sethostname", "setdomainname", "syslog", "vhangup", "iopl", "ioperm"],
                           because: "the machine's kernel, clock, devices and log: the operator's"),
            SystemCallRule(["open_by_handle_at", "name_to_handle_at"], because: "files by handle, past every path rule"),
            SystemCallRule(["setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid",
                            "setgroups", "capset", "personality"],
                           because: "who it is and what it may do: fixed at spawn"),
            SystemCallRule(["memfd_create", "memfd_secret", "shmget", "mq_open"],
                           because: "memory the memory limit (RLIMIT_DATA) does not count, or that outlives it"),
            SystemCallRule(["mmap"], .argumentMatches(index: 3, mask: UInt32(MAP_SHARED | MAP_ANONYMOUS),
                                                      value: UInt32(MAP_SHARED | MAP_ANONYMOUS)),
                           because: "shared anonymous memory, which the memory limit (RLIMIT_DATA) does not count"),
            // Its own process and group only; Landlock's signal scope says the same where the kernel has it.
            SystemCallRule(["kill"], .argumentIsNoneOf(index: 0, mask: .max, values: [UInt32(bitPattern: pid), 0]),
                           because: "signals to other processes"),
            SystemCallRule(["tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"],
                           .argumentIsNoneOf(index: 0, mask: .max, values: [UInt32(bitPattern: pid)]),
                           because: "signals to other processes"),
            SystemCallRule(["tkill", "pidfd_send_signal"], because: "signals to other processes (threads use tgkill)"),
            // glibc's getrlimit and setrlimit name no process (0).
            SystemCallRule(["prlimit64"], .argumentIsNoneOf(index: 0, mask: .max, values: [UInt32(bitPattern: pid), 0]),
                           because: "the limits of other processes: a child of the host's own user could lower the host's"),
        ]
        if !policy.runnable.isEmpty {
            rules.append(SystemCallRule(["clone3"], error: ENOSYS, because: "its arguments cannot be read here: glibc falls back to clone"))
        } else {
            rules += [
                SystemCallRule(["execve", "execveat"], because: "running programs, not granted"),
                SystemCallRule(["fork", "vfork"], because: "starting processes, not granted: no process of the plugin's outlives its own"),
                SystemCallRule(["clone"], .argumentIsNoneOf(index: 0, mask: UInt32(sandbox_clone_thread), values: [UInt32(sandbox_clone_thread)]),
                               because: "starting processes, not granted (threads are allowed)"),
                // glibc tries clone3 first and falls back to clone, whose flags the filter reads.
                SystemCallRule(["clone3"], error: ENOSYS, because: "its flags cannot be read here: glibc falls back to clone"),
            ]
        }
        // A socket of its own: TCP where ports were granted (Landlock then allows those ports only), nothing else.
        let tcp: [UInt32] = policy.tcpPorts.isEmpty ? [] : [UInt32(AF_INET), UInt32(AF_INET6)]
        rules.append(SystemCallRule(["socket"], .argumentIsNoneOf(index: 0, mask: .max, values: tcp), error: EACCES,
                                    because: "the network and other processes' sockets, unless granted (its connection to the host is made before)"))
        if !tcp.isEmpty {
            // The type's low four bits (SOCK_TYPE_MASK; flags such as SOCK_CLOEXEC lie above them).
            rules.append(SystemCallRule(["socket"], .argumentIsNoneOf(index: 1, mask: 0xF, values: [UInt32(SOCK_STREAM.rawValue)]),
                                        error: EACCES, because: "UDP and raw sockets: TCP alone is granted"))
        }
        return rules
    }
}
