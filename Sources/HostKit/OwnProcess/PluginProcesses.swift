internal import DynamicLoading

/// Which plugins run in a process of their own, and how those processes are run: the operator's
/// choice, per plugin file, with no change in the plugin.
///
/// A plugin placed so is opened, checked and registered by a child process the host starts for it
/// (the program ``executable``, which calls ``PluginChild/serve(discovery:)``; the `host` command
/// does so for `host __serve-plugin`), through the same load pipeline and checks as in the host. Its
/// services are distributed actors (a contract of `DistributedServiceKey`s): the host's slots hand
/// out proxies, and each call crosses to the child and back. A plugin whose contract is a plain
/// protocol cannot be placed so: it is refused at load, naming the key.
///
/// When the child crashes, exits, is killed, passes a limit or stops answering, every call pending
/// and every later one fails with a `PluginActorError` naming how it ended, and the host restarts
/// it, with a growing pause between tries; proxies taken before work again once it is back. Past
/// ``RestartPolicy/maximum`` restarts within ``RestartPolicy/window``, it stays down, and the host
/// withdraws its plugin as a reload withdraws one whose file is gone, with the plugins that require
/// it; a later reload loads them again.
public struct PluginProcesses: Sendable {
    /// What the host lets one plugin's process use; nil: no limit. A process past a limit is ended
    /// by the kernel and treated as a crash.
    public struct Limits: Sendable, Equatable {
        /// The memory its heap and mappings may take (`RLIMIT_DATA`), in bytes.
        public var memoryBytes: UInt64?
        /// The CPU time it may use, in seconds (`RLIMIT_CPU`).
        public var cpuSeconds: UInt64?
        /// The descriptors it may have open (`RLIMIT_NOFILE`).
        public var openFiles: UInt64?
        /// The threads (and, with a run grant, processes) it may run at once; past it, starting
        /// another fails (`EAGAIN`). Part of the sandbox (``PluginSandbox``), without which it is not
        /// applied: `RLIMIT_NPROC`, set in the child's user namespace (where it counts the child's
        /// threads alone). A Swift program runs about 10 threads idle, and Dispatch starts up to 64
        /// more under load.
        public var threads: UInt64?

        /// Limits as given; none by default.
        public init(memoryBytes: UInt64? = nil, cpuSeconds: UInt64? = nil, openFiles: UInt64? = nil, threads: UInt64? = nil) {
            self.memoryBytes = memoryBytes
            self.cpuSeconds = cpuSeconds
            self.openFiles = openFiles
            self.threads = threads
        }
    }

    /// When a plugin's process that ended is started again.
    public struct RestartPolicy: Sendable, Equatable {
        /// The restarts allowed within ``window``; past them the process stays down and its plugin is withdrawn.
        public var maximum: Int
        /// The span ``maximum`` counts restarts in.
        public var window: Duration
        /// The pause before restarting a process that ended before it served (it did not start its
        /// plugin); it doubles with each such end in a row. A process that served is restarted at
        /// once: its end costs the calls it had in flight.
        public var backoff: Duration
        /// The longest pause.
        public var maximumBackoff: Duration

        /// A policy as given: by default 5 restarts a minute, a process that had not served after 0.1 s,
        /// 0.2 s, 0.4 s...
        public init(maximum: Int = 5, window: Duration = .seconds(60), backoff: Duration = .milliseconds(100),
                    maximumBackoff: Duration = .seconds(5)) {
            self.maximum = maximum
            self.window = window
            self.backoff = backoff
            self.maximumBackoff = maximumBackoff
        }
    }

    /// The program each plugin's process runs, by absolute path.
    public var executable: String
    /// Arguments before the child's own (`host __serve-plugin`: `["__serve-plugin"]`).
    public var arguments: [String]
    /// The plugin files placed in processes of their own: a file name (`libEchoPlugin.so`), a real
    /// path, or `*` for every plugin.
    public var files: Set<String>
    /// What each process may use.
    public var limits: Limits
    /// How long a call to a service of such a plugin may wait for its answer (a caller can shorten
    /// it with `PluginActorSystem.withCallTimeout`).
    public var callTimeout: Duration
    /// How often the host asks each process whether it still answers, and how long it waits: a
    /// process that does not answer within it is killed and restarted. Nil: never asked.
    public var heartbeat: Duration?
    /// When a process that ended is started again.
    public var restarts: RestartPolicy
    /// Each process's environment: with the sandbox on, these variables alone (nothing of the
    /// host's); with it off, the host's with these added.
    public var environment: [String: String]
    /// How each process is confined: on by default.
    public var sandbox: PluginSandbox
    /// Whether each plugin keeps a second process started ahead (a *standby*: its program running
    /// and sandboxed, its plugin loaded, that is opened and checked with its constructors run, not
    /// registered nor started; the host connected to it and its confinement checked, and nothing
    /// served to it before), which takes
    /// over when the serving one ends: a restart then skips the program's start, the connection and
    /// the plugin's load (most of a restart's time), and only registers and starts the plugin. It
    /// costs one idle process per plugin, in which the plugin's constructors run whether or not it
    /// ever serves, while the serving process runs (with an operator's file check, a digest list, the
    /// standby loads nothing ahead: the list in force when it takes over decides, and its confinement
    /// is checked then); off by default.
    public var standby = false
    /// Whether the children are forked from a zygote: one process of ``executable``, started with the
    /// host's first child, single-threaded, its libraries mapped and bound and its first paths
    /// warmed, that forks each child after (which then enters its own sandbox and loads its plugin).
    /// A child so starts in a fraction of a program's start, and shares the zygote's pages until it
    /// writes them. The children are the zygote's (it reaps them and tells the host how each ended;
    /// the host signals them through a pidfd) and show in `ps` under its program. A zygote that
    /// cannot fork safely is given up on (the host says so once) and each child is started on its
    /// own, as with this off. On by default.
    public var zygote = true
    /// Where the calls each process served go, as that process timed them (for the host's traces:
    /// Integrations' `PluginCallTracing.recorder(tracer:)`); nil: a process times none, and sends nothing.
    public var servedCalls: (any PluginServedCallRecorder)?

    /// Processes of `executable arguments...` for the plugin files `files`.
    public init(executable: String, arguments: [String], files: Set<String>, limits: Limits = Limits(),
                callTimeout: Duration = .seconds(30), heartbeat: Duration? = .seconds(5),
                restarts: RestartPolicy = RestartPolicy(), environment: [String: String] = [:],
                sandbox: PluginSandbox = PluginSandbox()) {
        self.executable = executable
        self.arguments = arguments
        self.files = files
        self.limits = limits
        self.callTimeout = callTimeout
        self.heartbeat = heartbeat
        self.restarts = restarts
        self.environment = environment
        self.sandbox = sandbox
    }

    /// True if the plugin file `candidate` runs in a process of its own: as the operator's
    /// `placements` (``PluginSettingsFile/placements``) place it, by its real path, else a file name
    /// of it, else `*`; if none names it, as ``files`` do.
    func placesOwnProcess(_ candidate: PluginCandidate, placements: [String: PluginPlacement] = [:]) -> Bool {
        let placed = placements[candidate.realPath] ?? candidate.fileNames.lazy.compactMap { placements[$0] }.first ?? placements["*"]
        if let placed { return placed == .ownProcess }
        return files.contains("*") || files.contains(candidate.realPath)
            || candidate.fileNames.contains(where: files.contains)
    }
}
