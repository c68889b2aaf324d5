/// What one plugin's process may reach once it has confined itself (``Sandbox/enter(_:)``): the data
/// the host hands its child at spawn, fixed for the child's life (a changed grant is a new child).
/// Everything not named here is denied by the layers ``SandboxLayer`` lists; what each denies, and
/// why, is written beside it (``SystemCallRule/policy(_:)``, ``Landlock``).
package struct SandboxPolicy: Codable, Sendable, Equatable {
    /// Files and folders it may read, each with what lies under it: the plugin's file and the
    /// libraries beside it, the digest list, paths the operator granted. (The runtime's own
    /// libraries are added by the child itself, from what it has mapped.)
    package var readable: [String]
    /// Folders it may write in (and read): its private ``folder`` and folders the operator granted.
    package var writable: [String]
    /// Its private folder, made by the host for this process alone: where it copies its plugin before
    /// it maps it, and its `TMPDIR`.
    package var folder: String?
    /// TCP ports it may connect to, on any address (Landlock filters TCP by port): granted by the
    /// operator. With none, the process has a network namespace of its own: no interface, no network.
    package var tcpPorts: [UInt16]
    /// Programs (or folders of them) it may run: granted by the operator. With any, it may also
    /// start processes (`fork`, `execve`); with none, neither.
    package var runnable: [String]
    /// The threads (and, with ``runnable``, processes) it may run at once, which it bounds itself to
    /// with `RLIMIT_NPROC` in its user namespace (a root host's child first takes a real user the
    /// limit binds, ``Sandbox/countedRealUser``); nil: no bound.
    package var threads: UInt64?
    /// Whether a layer the kernel does not offer is left out (named in what ``Sandbox/enter(_:)``
    /// returns) instead of refusing to start: the operator's choice to accept less.
    package var acceptsMissingLayers: Bool

    package init(readable: [String] = [], writable: [String] = [], folder: String? = nil, tcpPorts: [UInt16] = [], runnable: [String] = [],
                 threads: UInt64? = nil, acceptsMissingLayers: Bool = false) {
        self.readable = readable
        self.writable = writable
        self.folder = folder
        self.tcpPorts = tcpPorts
        self.runnable = runnable
        self.threads = threads
        self.acceptsMissingLayers = acceptsMissingLayers
    }

    /// The variable that carries the policy (as JSON) to the child; the child removes it once read.
    package static let variable = "SWIFT_PLUGIN_SANDBOX"
}
