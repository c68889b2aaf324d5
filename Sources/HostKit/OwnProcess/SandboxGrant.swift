import PluginAPI

/// What the operator lets one plugin's process reach beyond its sandbox (``PluginSandbox/grants``):
/// the plugin gets what it declared (`PluginMetadata.needs`) that this covers, nothing else.
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

    /// What a plugin that declared `needs` gets of this grant: each need it covers (a path at or under
    /// a path granted for it, a port granted), and each it does not, as `read PATH`, `tcp PORT`...
    func covering(_ needs: PluginNeeds) -> (granted: SandboxGrant, refused: [String]) {
        var granted = SandboxGrant(), refused: [String] = []
        func cover(_ paths: [String], by grants: [String], as kind: String, into field: WritableKeyPath<SandboxGrant, [String]>) {
            for path in paths {
                if grants.contains(where: { Self.path(path, liesIn: $0) }) { granted[keyPath: field].append(path) } else { refused.append("\(kind) \(path)") }
            }
        }
        cover(needs.read, by: read + write, as: "read", into: \.read)
        cover(needs.write, by: write, as: "write", into: \.write)
        cover(needs.run, by: run, as: "run", into: \.run)
        for port in needs.tcpPorts {
            if tcpPorts.contains(port) { granted.tcpPorts.append(port) } else { refused.append("tcp \(port)") }
        }
        return (granted, refused)
    }

    /// What it grants, as `read PATH`, `write PATH`, `run PATH`, `tcp PORT`.
    var lines: [String] {
        read.map { "read \($0)" } + write.map { "write \($0)" } + run.map { "run \($0)" } + tcpPorts.map { "tcp \($0)" }
    }

    /// Whether `path` is `folder` or lies under it (both absolute; a trailing `/` means nothing).
    private static func path(_ path: String, liesIn folder: String) -> Bool {
        let folder = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }
}
