/// One layer of a plugin process's sandbox, in the order the child enters them. Each guards
/// something the others may not; together they are the table in SECURITY.md.
package enum SandboxLayer: String, Codable, Sendable, CaseIterable {
    /// A user namespace of its own (its user mapped to itself): what lets an unprivileged child make
    /// the namespaces below, and what strips a root host's child of root's capabilities outside it.
    case userNamespace = "user namespace"
    /// A bound on the threads and processes it runs at once (``SandboxPolicy/threads``):
    /// `RLIMIT_NPROC`, set in its user namespace, where it counts only its own. Only when the host
    /// asks for a bound.
    case threadLimit = "thread limit"
    /// A network namespace of its own, with no interface: no network at all (left out when the
    /// operator granted TCP ports, which Landlock then filters).
    case networkNamespace = "network namespace"
    /// An IPC namespace of its own: no System V queue, semaphore or shared memory of the host's.
    case ipcNamespace = "IPC namespace"
    /// No capability, in its namespace or its bounding set.
    case noCapabilities = "no capabilities"
    /// `no_new_privs`: no set-user-ID program or file capability ever raises what it may do.
    case noNewPrivileges = "no_new_privs"
    /// Landlock's file rules: it reads only what ``SandboxPolicy/readable`` names and the runtime's
    /// libraries, and writes only in ``SandboxPolicy/writable``. Also keeps it from `ptrace` and from
    /// the memory and environment (`/proc/PID/mem`, `environ`) of any process outside its sandbox.
    case landlockFiles = "Landlock files"
    /// Landlock's TCP rules (ABI 4): it binds no port, and connects only to granted ports.
    case landlockNetwork = "Landlock TCP"
    /// Landlock's scopes (ABI 6): no signal to, and no abstract Unix socket of, a process outside its sandbox.
    case landlockScopes = "Landlock scopes"
    /// The seccomp filter (``SystemCallRule/policy(_:)``): system calls no plugin needs fail.
    case systemCallFilter = "seccomp filter"
}
