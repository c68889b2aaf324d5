internal import DynamicLoading
import Foundation
import PluginAPI

/// The host's side of its plugins' own logs (`PluginLog`): the level each plugin writes at, which
/// the operator sets per plugin and may change while it runs, and where each line goes. Give it to
/// ``PluginHost`` (`logs:`), and every plugin it loads finds its log in what it is lent
/// (`services.log`), its name and version on each line.
///
/// ```swift
/// let logs = PluginLogs(level: .info, levels: ["greeter": .debug]) { line in print(line) }
/// let host = PluginHost(logs: logs)
/// ```
public final class PluginLogs: PluginLogHandler {
    private let levels: Lock<(standard: PluginLog.Level, plugins: [String: PluginLog.Level])>
    private let write: @Sendable (PluginLogLine) -> Void

    /// Lines of each plugin at `levels[plugin]` or above (`level` for a plugin not named), handed to
    /// `write`, on the thread the plugin wrote them on.
    public init(level: PluginLog.Level = .info, levels: [String: PluginLog.Level] = [:],
                write: @escaping @Sendable (PluginLogLine) -> Void) {
        self.levels = Lock((level, levels))
        self.write = write
    }

    /// Lines written to standard error, each whole, one at a time: `prefix` and the line's escaped
    /// ``PluginLogLine/description``. What `host` prints (`host: [greeter 1.0.0] info: ...`). A
    /// standard error that fails (a closed pipe, a full disk) loses the lines, never the host.
    public static func standardError(prefix: String = "", level: PluginLog.Level = .info,
                                     levels: [String: PluginLog.Level] = [:]) -> PluginLogs {
        PluginLogs(level: level, levels: levels) { line in
            let bytes = Data((prefix + line.description + "\n").utf8)
            // A pipe takes a long line in several writes, between which another thread's would land.
            // `write(_:)` traps when the write fails; a plugin's line must not end the host.
            writingStandardError.withLock { try? FileHandle.standardError.write(contentsOf: bytes) }
        }
    }

    /// Held while a line is written to standard error, by every ``standardError(prefix:level:levels:)``.
    private static let writingStandardError = Lock(())

    /// The level of the plugins that have none of their own.
    public var level: PluginLog.Level {
        get { levels.withLock { $0.standard } }
        set { levels.withLock { $0.standard = newValue } }
    }

    /// Sets the level `plugin` writes at from its next line on; `nil`: ``level``, as for any plugin.
    public func setLevel(_ level: PluginLog.Level?, of plugin: String) {
        levels.withLock { $0.plugins[plugin] = level }
    }

    public func level(of plugin: String) -> PluginLog.Level {
        levels.withLock { $0.plugins[plugin] ?? $0.standard }
    }

    public func log(plugin: String, version: String, level: PluginLog.Level, message: String, metadata: [String: String],
                    file: String, line: UInt) {
        write(PluginLogLine(plugin: plugin, version: version, level: level, message: message, metadata: metadata,
                            file: file, line: line))
    }
}
