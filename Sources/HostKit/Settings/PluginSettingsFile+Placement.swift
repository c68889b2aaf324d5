internal import DynamicLoading
import Foundation

/// Where the operator places plugins, in the settings file beside their settings: read as each load
/// and reload begins, as the settings are, so that a `SIGHUP` moves a served plugin (a reload's
/// `moved`) into a process of its own or back into the host's.
///
/// ```json
/// { "plugins": { "reports": { "outbox": "/var/spool/reports" } },
///   "placement": { "libReportsPlugin.so": "own-process", "/srv/plugins/libClockPlugin.so": "in-process" } }
/// ```
///
/// Each key names plugin files as `--own-process` does (``PluginProcesses/files``): a file name (the
/// name a file is found under, or its real file's), an absolute path (made real as the file is read,
/// if it exists: a symlink names its target; a folder is refused), or `*` for every plugin; a path is
/// more specific than a file name, which is more specific than `*`. A file no key names keeps the
/// placement the host was started with. Only a ``PluginSettingsFile`` places plugins: a settings
/// source of another kind places none.
extension PluginSettingsFile {
    /// The `placement` object among the file's `members`: each key a file name, an absolute path or
    /// `*`, each value `in-process` or `own-process`.
    static func placements(of members: [String: SettingsValue], path: String) throws(Unusable) -> [String: PluginPlacement] {
        switch members["placement"] {
        case nil, .null?: return [:]
        case let .object(entries)?:
            var placements: [String: PluginPlacement] = [:]
            for (file, value) in entries {
                let parts = file.split(separator: "/", omittingEmptySubsequences: false)
                guard !file.isEmpty, !file.contains("/") || file.hasPrefix("/"), ![".", ".."].contains(file),
                      !parts.dropFirst().contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
                    throw Unusable(path: path, reason: "places '\(file)', which is neither a file name, an absolute path nor *")
                }
                guard case let .text(text) = value, let placement = PluginPlacement(rawValue: text) else {
                    throw Unusable(path: path, reason: "places '\(file)' neither in-process nor own-process")
                }
                var key = file
                if file.hasPrefix("/"), let real = Paths.realPath(file) {
                    var isFolder: ObjCBool = false
                    if FileManager.default.fileExists(atPath: real, isDirectory: &isFolder), isFolder.boolValue {
                        throw Unusable(path: path, reason: "places '\(file)', a folder: name a plugin's file in it, or *")
                    }
                    key = real
                }
                placements[key] = placement
            }
            return placements
        case .text?, .list?:
            throw Unusable(path: path, reason: "has 'placement', which is not an object (plugin files, each in-process or own-process)")
        }
    }
}
