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
    /// text of the plugin's escaped: safe to print. A name, version, metadata key or value of other
    /// characters than letters, digits and `.-_+` is quoted (`"..."`, its `"` and `\` escaped), so
    /// that no plugin's name can make its line read as another plugin's, and no value (`1 b=2`) as
    /// two fields.
    public var description: String {
        let fields = metadata.sorted { $0.key < $1.key }.map {
            " \(Self.quotedIfNeeded($0.key))=\(Self.quotedIfNeeded($0.value))"
        }.joined()
        let label = "\(Self.quotedIfNeeded(plugin)) \(Self.quotedIfNeeded(version))"
        return TerminalText.escaped("[\(label)] \(level.rawValue): \(message)\(fields)")
    }

    /// `text` as it is if it is plain (ASCII letters, digits, `.-_+`, not empty), else quoted.
    private static func quotedIfNeeded(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_+".unicodeScalars.contains(scalar))
        }
        if plain { return text }
        return "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
}
