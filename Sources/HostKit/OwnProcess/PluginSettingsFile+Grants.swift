internal import DynamicLoading
import Foundation

/// What the operator grants plugins' sandboxes, in the settings file beside their settings: read
/// here, by the host, whose file no plugin's process can read.
///
/// ```json
/// { "plugins": { "reports": { "outbox": "/var/spool/reports" } },
///   "sandbox": { "reports": { "read": ["/srv/templates"], "write": ["/var/spool/reports"],
///                             "tcpPorts": [5432], "run": ["/usr/bin/lpr"] } } }
/// ```
extension PluginSettingsFile {
    /// The grants of the file's `sandbox` object, by plugin name (``PluginSandbox/grants``), read now;
    /// throws ``Unusable`` if the file cannot be read, or a grant is not one (a path not absolute, a
    /// port out of range).
    public func sandboxGrants() throws -> [String: SandboxGrant] {
        let bytes: [UInt8]
        do {
            bytes = try OperatorFile.bytes(at: path, largest: Self.largest,
                                           tooLarge: "is larger than \(Self.largest >> 20) MiB, more than any settings need")
        } catch {
            throw Unusable(path: path, reason: error.reason)
        }
        let file: GrantsFile
        do {
            file = try JSONDecoder().decode(GrantsFile.self, from: Data(bytes))
        } catch {
            throw Unusable(path: path, reason: "has a 'sandbox' object that is not grants by plugin name, each with "
                           + "'read', 'write' and 'run' (lists of absolute paths) and 'tcpPorts' (a list of ports)")
        }
        var grants: [String: SandboxGrant] = [:]
        for (name, grant) in file.sandbox ?? [:] {
            if let relative = ((grant.read ?? []) + (grant.write ?? []) + (grant.run ?? [])).first(where: { !$0.hasPrefix("/") }) {
                throw Unusable(path: path, reason: "grants plugin '\(name)' the path '\(relative)', which is not absolute")
            }
            grants[name] = SandboxGrant(read: grant.read ?? [], write: grant.write ?? [], tcpPorts: grant.tcpPorts ?? [],
                                        run: grant.run ?? [])
        }
        return grants
    }
}

/// The part of a settings file the grants are read from.
private struct GrantsFile: Decodable {
    struct Grant: Decodable {
        let read: [String]?
        let write: [String]?
        let tcpPorts: [UInt16]?
        let run: [String]?
    }

    let sandbox: [String: Grant]?
}
