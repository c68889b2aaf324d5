import CSandbox
import Glibc

/// How a plugin's process confines itself, first thing, before it starts a thread or the host sends it
/// a plugin: the layers of ``SandboxLayer``, each entered in order, with the rules of a
/// ``SandboxPolicy``. What is entered stays for the process's life and passes to what it starts:
/// none of it can be undone, so the sandbox is fixed at spawn.
///
/// Fails closed: a layer the kernel does not offer is a ``SandboxError`` naming it, unless the
/// policy accepts missing layers, and then it is left out of the layers returned.
package enum Sandbox {
    /// Confines this process with `policy`; the layers entered, in order.
    package static func enter(_ policy: SandboxPolicy) throws(SandboxError) -> [SandboxLayer] {
        // Landlock binds this thread and those it starts later, and a process with threads cannot
        // enter a user namespace: a thread started before would stay outside.
        let threads = sandbox_thread_count()
        guard threads == 1 else {
            throw SandboxError(layer: .landlockFiles, reason: "the process already runs \(threads < 0 ? "an unknown number of" : "\(threads)") threads")
        }
        var layers: [SandboxLayer] = []
        func enter(_ layer: SandboxLayer, _ step: () -> String?) throws(SandboxError) {
            if let failure = step() {
                guard policy.acceptsMissingLayers else { throw SandboxError(layer: layer, reason: failure) }
            } else {
                layers.append(layer)
            }
        }
        // The kernel exempts the machine's root from RLIMIT_NPROC, also in a user namespace: a root
        // host's child takes a real user of no account's, its effective user (its rights) staying root's.
        // (Root of a container's user namespace is another user of the machine's: it is bound as is.)
        let counted = policy.threads == nil || getuid() != 0 || !rootIsTheMachines() ? nil : takeCountedRealUser()
        try enter(.userNamespace) { enterUserNamespace() }
        if let threads = policy.threads {
            let ownNamespace = layers.contains(.userNamespace)
            try enter(.threadLimit) { counted ?? limitThreads(to: threads, inOwnUserNamespace: ownNamespace) }
        }
        if policy.tcpPorts.isEmpty {
            try enter(.networkNamespace) { failure(sandbox_unshare(Int32(sandbox_new_network)), "unshare(CLONE_NEWNET)") }
        }
        try enter(.ipcNamespace) { failure(sandbox_unshare(Int32(sandbox_new_ipc)), "unshare(CLONE_NEWIPC)") }
        try enter(.noCapabilities) { failure(sandbox_drop_capabilities(), "capset") }
        try enter(.noNewPrivileges) { failure(sandbox_no_new_privileges(), "prctl(PR_SET_NO_NEW_PRIVS)") }
        let objects = loadedObjects()
        layers += try Landlock.restrict(readable: policy.readable + runtimeFiles(objects), writable: policy.writable + (policy.folder.map { [$0] } ?? []),
                                        runnable: policy.runnable.isEmpty ? [] : policy.runnable + dynamicLoader(among: objects),
                                        tcpPorts: policy.tcpPorts, acceptsMissingLayers: policy.acceptsMissingLayers)
        try SeccompFilter(SystemCallRule.policy(policy, pid: getpid())).install()
        layers.append(.systemCallFilter)
        return layers
    }

    /// The real user a root host's child takes so that `RLIMIT_NPROC` binds it (``SandboxPolicy/threads``):
    /// one no account has, below 2^31 (the children of root hosts share it; the filter and Landlock keep
    /// them from signalling each other). Effective and saved users stay root: its files, capabilities
    /// and its user namespace's map are as before. What reads the real user sees it: the count of its
    /// threads, `access(2)` (which then fails where `open` would not), and a program it runs under a run
    /// grant, which runs as set-user-ID programs do (`AT_SECURE`: glibc ignores `LD_*` variables).
    package static let countedRealUser: uid_t = 2_147_483_000

    /// Whether this namespace's root is the machine's (`/proc/self/uid_map` maps 0 to 0): the user the
    /// kernel exempts from `RLIMIT_NPROC`.
    private static func rootIsTheMachines() -> Bool {
        guard let map = try? String(contentsOfFile: "/proc/self/uid_map", encoding: .utf8) else { return true }
        return map.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count == 3 && fields[0] == "0" && fields[1] == "0"
        }
    }

    /// Takes ``countedRealUser`` as the real user: nil, or why not.
    private static func takeCountedRealUser() -> String? {
        failure(sandbox_set_real_user(countedRealUser), "setresuid")
    }

    /// A user namespace with this process's effective user and group mapped to themselves: nil, or why not.
    private static func enterUserNamespace() -> String? {
        let (user, group) = (geteuid(), getegid())
        if let failure = failure(sandbox_unshare(Int32(sandbox_new_user)), "unshare(CLONE_NEWUSER)") { return failure }
        // Until its maps are written the process is nobody in it; setgroups must be denied before a group map.
        for (file, text) in [("uid_map", "\(user) \(user) 1"), ("setgroups", "deny"), ("gid_map", "\(group) \(group) 1")] {
            if let failure = write(text, to: "/proc/self/\(file)") { return failure }
        }
        return nil
    }

    /// `RLIMIT_NPROC` at `threads`, set in the process's own user namespace, where it counts the
    /// process's own threads (the kernel counts tasks per real user per namespace; it also counts
    /// them, with every task of the same real user, against the host's own `RLIMIT_NPROC`): nil, or why not.
    private static func limitThreads(to threads: UInt64, inOwnUserNamespace: Bool) -> String? {
        guard inOwnUserNamespace else {
            return "without a user namespace of its own, RLIMIT_NPROC would count every process of its user"
        }
        do {
            try Posix.setLimit(Int32(__RLIMIT_NPROC.rawValue), of: 0, soft: threads, hard: threads)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Writes `text` to the existing file `path` in one write: nil, or why not.
    static func write(_ text: String, to path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "open \(path): \(String(cString: strerror(errno)))" }
        defer { close(descriptor) }
        let written = text.utf8CString.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, $0.count - 1) }
        return written == text.utf8.count ? nil : "write \(path): \(String(cString: strerror(errno)))"
    }

    /// nil for 0; else `call: reason` for a negated errno.
    private static func failure(_ result: Int32, _ call: String) -> String? {
        result == 0 ? nil : "\(call): \(String(cString: strerror(-result)))"
    }

    /// What the runtime reads: every object mapped now, `objects` (the program, the Swift runtime and its
    /// libraries, by file), the folders of the system's and the Swift runtime's libraries (a plugin
    /// links more of them), the loader's cache, the time zones, `/dev/null` and `/dev/urandom`, the
    /// processors' list, and `/proc`: Dispatch reads its threads' `/proc/TID/stat` to size its pool,
    /// and crashes if it cannot. (Landlock still keeps the memory, environment, descriptors and
    /// maps of a process outside the sandbox from it: those need the right to `ptrace` it.)
    private static func runtimeFiles(_ objects: [String]) -> [String] {
        let systemFolders = ["/lib", "/lib64", "/usr/lib", "/usr/lib64"]
        let runtime = objects.first { $0.hasSuffix("/libswiftCore.so") }.map(folder(of:))
        let folders = Set(objects.map(folder(of:)).filter { folder in
            folder == runtime || systemFolders.contains { folder == $0 || folder.hasPrefix($0 + "/") }
        })
        return objects + folders + ["/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo", "/dev/null", "/dev/urandom",
                                    "/sys/devices/system/cpu", "/proc"]
    }

    /// The paths of the objects mapped now, as the loader opened them.
    private static func loadedObjects() -> [String] {
        var bytes = [CChar](repeating: 0, count: 16 * 1024)
        var needed = bytes.withUnsafeMutableBufferPointer { sandbox_loaded_objects($0.baseAddress, $0.count) }
        if needed > bytes.count {
            bytes = [CChar](repeating: 0, count: needed)
            needed = bytes.withUnsafeMutableBufferPointer { sandbox_loaded_objects($0.baseAddress, $0.count) }
        }
        let text = String(decoding: bytes.prefix(min(needed, bytes.count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    /// The folder `path` lies in.
    private static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? path
    }

    /// The dynamic loader, which the kernel runs a program with (and checks the right to run).
    private static func dynamicLoader(among objects: [String]) -> [String] {
        objects.filter { $0.split(separator: "/").last?.hasPrefix("ld-linux") == true }
    }
}
