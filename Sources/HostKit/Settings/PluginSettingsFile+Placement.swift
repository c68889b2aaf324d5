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
/// Each key names plugin files as `--own-process` does (``PluginProcesses/files``): a file name, a
/// real path, or `*` for every plugin; a path is more specific than a file name, which is more
/// specific than `*`. A file no key names keeps the placement the host was started with.
extension PluginSettingsFile {
    /// The `placement` object among the file's `members`: each key a file name, an absolute path or
    /// `*`, each value `in-process` or `own-process`.
    static func placements(of members: [String: SettingsValue], path: String) throws(Unusable) -> [String: PluginPlacement] {
        switch members["placement"] {
        case nil, .null?: return [:]
        case let .object(entries)?:
            var placements: [String: PluginPlacement] = [:]
            for (file, value) in entries {
                guard !file.isEmpty, !file.contains("/") || file.hasPrefix("/") else {
                    throw Unusable(path: path, reason: "places '\(file)', which is neither a file name, an absolute path nor *")
                }
                guard case let .text(text) = value, let placement = PluginPlacement(rawValue: text) else {
                    throw Unusable(path: path, reason: "places '\(file)' neither in-process nor own-process")
                }
                placements[file] = placement
            }
            return placements
        case .text?, .list?:
            throw Unusable(path: path, reason: "has 'placement', which is not an object (plugin files, each in-process or own-process)")
        }
    }
}
