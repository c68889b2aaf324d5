import HostKit
import Logging
import PluginAPI

extension PluginLogs {
    /// Plugins' own logs (``PluginLog``) written to `logger`: each line at its level, with the
    /// plugin's `plugin` and `version` metadata (which the plugin's own metadata cannot replace),
    /// its source the plugin's name, its file and line where the plugin wrote it. `level` and
    /// `levels` are the operator's, per plugin, as for ``PluginLogs/init(level:levels:write:)``;
    /// the logger's own level applies too.
    ///
    /// The texts are the plugin's, and swift-log's stream handler prints them as they are: the
    /// message, the metadata, the name, the version and the file are handed on escaped
    /// (`TerminalText.escaped`), so a plugin's line cannot forge another or take over a terminal.
    ///
    /// ```swift
    /// let host = PluginHost(logs: PluginLogs.swiftLog(Logger(label: "plugins"), levels: ["greeter": .debug]))
    /// ```
    public static func swiftLog(_ logger: Logger, level: PluginLog.Level = .info,
                                levels: [String: PluginLog.Level] = [:]) -> PluginLogs {
        PluginLogs(level: level, levels: levels) { line in
            let escaped = TerminalText.escaped
            // Two keys a plugin wrote apart may escape alike: the first (in key order) is kept.
            var metadata = Logger.Metadata(line.metadata.sorted { $0.key < $1.key }.map { (escaped($0.key), .string(escaped($0.value))) },
                                           uniquingKeysWith: { first, _ in first })
            metadata["plugin"] = .string(escaped(line.plugin))
            metadata["version"] = .string(escaped(line.version))
            logger.log(level: Logger.Level(line.level), "\(escaped(line.message))", metadata: metadata,
                       source: escaped(line.plugin), file: escaped(line.file), function: "", line: line.line)
        }
    }
}

extension Logger.Level {
    /// swift-log's level of the same name.
    init(_ level: PluginLog.Level) {
        self = Logger.Level(rawValue: level.rawValue) ?? .critical
    }
}
