/// How each plugin placed in a process of its own is confined (``PluginProcesses/sandbox``): on by
/// default, the operator's to loosen.
///
/// Before it loads its plugin, the child enters every layer: a user namespace of its own, a network
/// namespace with no interface (no network), an IPC namespace, no capabilities, `no_new_privs`, a
/// Landlock ruleset (it reads only its plugin's files, the libraries beside them and the runtime's,
/// writes only in a private folder the host made for it, reaches no process outside its sandbox) and a
/// seccomp filter that fails the system calls no plugin needs (`ptrace`, mounts, namespaces, keyrings,
/// BPF, programs, processes, sockets, shared memory the memory limit does not count...). Its
/// environment is only ``PluginProcesses/environment``, nothing of the host's. With
/// ``PluginProcesses/Limits/threads``, a bound on its threads comes first. SECURITY.md has the
/// table of what each layer denies.
///
/// What a plugin needs beyond that, the operator grants it by name (``grants``). The sandbox is fixed
/// when the process starts, and the grants are the host's ``PluginProcesses`` from its start: a
/// changed grant takes effect in a host started after it (a reload does not read them again).
public struct PluginSandbox: Sendable, Equatable {
    /// Whether each process enters the sandbox. Off, a plugin's process runs as the host does, with
    /// its environment: it is then no boundary, only a place to crash in.
    public var isEnabled: Bool
    /// Whether a layer this kernel does not offer (an old kernel, no user namespaces, a container that
    /// forbids them) is left out, and said, instead of refusing to start the plugin's process.
    public var acceptsMissingLayers: Bool
    /// What each plugin may reach beyond the sandbox, by the name in its metadata.
    public var grants: [String: SandboxGrant]

    /// A sandbox for every process, with what `grants` adds; by default every layer is required.
    public init(isEnabled: Bool = true, acceptsMissingLayers: Bool = false, grants: [String: SandboxGrant] = [:]) {
        self.isEnabled = isEnabled
        self.acceptsMissingLayers = acceptsMissingLayers
        self.grants = grants
    }
}
