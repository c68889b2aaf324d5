import Foundation
import HostKit

/// The version and file of each plugin the server runs, as the load report and each reload's report
/// tell (``PluginHost/startedPlugins`` names them only): for `GET /plugins`.
final class PluginFiles: @unchecked Sendable {
    // @unchecked: `files` is only touched with `lock` held.

    /// One started plugin, as `GET /plugins` lists it.
    struct File: Encodable, Sendable {
        let name: String
        /// Nil if no report has named the plugin yet (a reload that has not returned).
        let version: String?
        let path: String?
    }

    /// Not Synchronization's Mutex, which ThreadSanitizer does not see through on Linux
    /// (ARCHITECTURE.md, "Locks, and why none is a Mutex").
    private let lock = NSLock()
    private var files: [String: (version: String?, path: String)] = [:]

    /// Takes the plugins the load registered.
    func record(_ report: LoadReport) {
        lock.withLock {
            for entry in report.loaded {
                if let metadata = entry.metadata { files[metadata.name] = (metadata.version, entry.path) }
            }
        }
    }

    /// Takes what a reload changed: the version serving now and its file, or a plugin withdrawn.
    func record(_ report: ReloadReport) {
        lock.withLock {
            for entry in report.entries {
                switch entry.action {
                case .added, .upgraded, .restarted, .reconfigured, .moved:
                    files[entry.plugin] = (entry.version, entry.path)
                case .withdrawn:
                    files[entry.plugin] = nil
                case .kept, .refused:
                    break
                }
            }
        }
    }

    /// The plugins named `names`, in that order, with their versions and files.
    func describe(_ names: [String]) -> [File] {
        lock.withLock {
            names.map { name in File(name: name, version: files[name]?.version ?? nil, path: files[name]?.path) }
        }
    }
}
