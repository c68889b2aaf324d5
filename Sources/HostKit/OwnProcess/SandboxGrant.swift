/// What the operator lets one plugin's process reach beyond its sandbox (``PluginSandbox/grants``).
public struct SandboxGrant: Sendable, Equatable {
    /// Files and folders it may read (a folder: everything under it), by absolute path.
    public var read: [String]
    /// Folders it may write in (and read), by absolute path.
    public var write: [String]
    /// TCP ports it may connect to, on any address: Landlock filters TCP by port, not by address.
    /// Its process then keeps the host's network (no network namespace of its own); it still binds
    /// no port, and opens no socket but TCP.
    public var tcpPorts: [UInt16]
    /// Programs it may run (files, or folders of them), by absolute path: it may then start processes,
    /// which run in the same sandbox. (What a program reads, a shell's libraries say, must be granted too.)
    public var run: [String]

    /// A grant of what is given; nothing by default.
    public init(read: [String] = [], write: [String] = [], tcpPorts: [UInt16] = [], run: [String] = []) {
        self.read = read
        self.write = write
        self.tcpPorts = tcpPorts
        self.run = run
    }

    /// Whether it grants nothing.
    var isEmpty: Bool { read.isEmpty && write.isEmpty && tcpPorts.isEmpty && run.isEmpty }
}
