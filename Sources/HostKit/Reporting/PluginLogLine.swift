import PluginAPI

/// One line of a plugin's own log (`PluginLog`), as ``PluginLogs`` hands it on. Its texts are the
/// plugin's: ``description`` escapes them.
public struct PluginLogLine: Sendable, CustomStringConvertible {
    /// The plugin's metadata name.
    public let plugin: String
    /// The plugin's version.
    public let version: String
    /// The level the plugin wrote it at.
    public let level: PluginLog.Level
    /// What the plugin wrote.
    public let message: String
    /// What the plugin attached to the line.
    public let metadata: [String: String]
    /// Where in the plugin's source the line was written (`#fileID`).
    public let file: String
    /// The line of ``file`` it was written at.
    public let line: UInt

    /// `[plugin version] level: message key=value...` (the metadata sorted by key), one line, every
    /// text of the plugin's escaped: safe to print.
    public var description: String {
        let fields = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        return TerminalText.escaped("[\(plugin) \(version)] \(level.rawValue): \(message)\(fields)")
    }
}
