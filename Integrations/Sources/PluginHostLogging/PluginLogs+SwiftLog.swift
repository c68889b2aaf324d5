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
    /// ```swift
    /// let host = PluginHost(logs: PluginLogs.swiftLog(Logger(label: "plugins"), levels: ["greeter": .debug]))
    /// ```
    public static func swiftLog(_ logger: Logger, level: PluginLog.Level = .info,
                                levels: [String: PluginLog.Level] = [:]) -> PluginLogs {
        PluginLogs(level: level, levels: levels) { line in
            var metadata = Logger.Metadata(uniqueKeysWithValues: line.metadata.map { ($0.key, .string($0.value)) })
            metadata["plugin"] = .string(line.plugin)
            metadata["version"] = .string(line.version)
            logger.log(level: Logger.Level(line.level), "\(line.message)", metadata: metadata, source: line.plugin,
                       file: line.file, function: "", line: line.line)
        }
    }
}

extension Logger.Level {
    /// swift-log's level of the same name.
    init(_ level: PluginLog.Level) {
        self = Logger.Level(rawValue: level.rawValue) ?? .critical
    }
}
