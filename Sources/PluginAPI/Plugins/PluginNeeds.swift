/// What a plugin needs beyond the sandbox a host gives a plugin placed in a process of its own, which
/// lets it read its own files, write a private folder, and nothing else of the machine: no network,
/// no program, no other process. The host grants it what the operator granted too, and says what it
/// declared and was not granted: denied, the system call fails as in any sandbox (`EACCES`, `EPERM`).
/// In the host's process, nothing is enforced: a plugin there has the host's rights.
///
/// ```swift
/// PluginMetadata(name: "reports", version: "1.0.0", provides: [ReportKeys.reports],
///                needs: PluginNeeds(read: ["/srv/templates"], write: ["/var/spool/reports"], tcpPorts: [5432]))
/// ```
public struct PluginNeeds: Sendable, Equatable {
    /// Files and folders it reads (a folder: everything under it), by absolute path.
    public var read: [String]
    /// Folders it writes in (and reads), by absolute path.
    public var write: [String]
    /// Programs it runs (files, or folders of them), by absolute path.
    public var run: [String]
    /// TCP ports it connects to.
    public var tcpPorts: [UInt16]

    /// Needs as given; none by default.
    public init(read: [String] = [], write: [String] = [], run: [String] = [], tcpPorts: [UInt16] = []) {
        self.read = read
        self.write = write
        self.run = run
        self.tcpPorts = tcpPorts
    }
}
