/// A plugin's own log: each line goes to the host's log with the plugin's name and version, if its
/// level is at least the one the host's operator set for the plugin. What a plugin is lent hands it
/// out (``ServiceResolver/log``): in `registerServices` (`registrar.services.log`), in the factories
/// that captured that resolver, and in the start and shutdown hooks.
///
/// ```swift
/// public func start(services: ServiceResolver) async throws {
///     services.log.info("cache warmed", metadata: ["entries": "\(cache.count)"])
/// }
/// ```
///
/// Its levels are swift-log's; a message and its metadata are made only if the line is written. The
/// log of a resolver that no host lent (a ``ServiceLocator`` of your own) writes nowhere.
public struct PluginLog: Sendable {
    /// How much a line matters, lowest first, as swift-log's `Logger.Level` ranks them.
    public enum Level: String, Sendable, Comparable, CaseIterable {
        /// Every step, for following one request through.
        case trace
        /// What a developer looks for when something went wrong.
        case debug
        /// What happened, in the normal course: `info` unless the operator set another level.
        case info
        /// Something worth an operator's eye that needs no action.
        case notice
        /// Something went wrong, and the plugin carried on.
        case warning
        /// Something failed.
        case error
        /// The plugin cannot go on.
        case critical

        public static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }
    }

    /// The plugin whose lines these are, its version, and where they go (`nil`: nowhere).
    private let plugin: String
    private let version: String
    private let handler: (any PluginLogHandler)?

    /// The log of `plugin` at `version`, whose lines `handler` receives: what a host lends a plugin.
    @_spi(HostKit) public init(plugin: String, version: String, handler: any PluginLogHandler) {
        self.plugin = plugin
        self.version = version
        self.handler = handler
    }

    /// A log that writes nowhere.
    init() {
        plugin = ""
        version = ""
        handler = nil
    }

    /// The lowest level written now (the operator may change it while the plugin runs); `.critical`
    /// for a log that writes nowhere.
    public var level: Level { handler?.level(of: plugin) ?? .critical }

    /// Writes `message`, with `metadata`, at `level`, if `level` is at least ``level``.
    public func log(_ level: Level, _ message: @autoclosure () -> String,
                    metadata: @autoclosure () -> [String: String] = [:], file: String = #fileID, line: UInt = #line) {
        guard let handler, level >= handler.level(of: plugin) else { return }
        handler.log(plugin: plugin, version: version, level: level, message: message(), metadata: metadata(),
                    file: file, line: line)
    }

    /// Writes `message` at ``Level/trace``.
    public func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:],
                      file: String = #fileID, line: UInt = #line) {
        log(.trace, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes `message` at ``Level/debug``.
    public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:],
                      file: String = #fileID, line: UInt = #line) {
        log(.debug, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes `message` at ``Level/info``.
    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:],
                     file: String = #fileID, line: UInt = #line) {
        log(.info, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes `message` at ``Level/notice``.
    public func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:],
                       file: String = #fileID, line: UInt = #line) {
        log(.notice, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes `message` at ``Level/warning``.
    public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:],
                        file: String = #fileID, line: UInt = #line) {
        log(.warning, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes `message` at ``Level/error``.
    public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:],
                      file: String = #fileID, line: UInt = #line) {
        log(.error, message(), metadata: metadata(), file: file, line: line)
    }

    /// Writes `message` at ``Level/critical``.
    public func critical(_ message: @autoclosure () -> String, metadata: @autoclosure () -> [String: String] = [:],
                         file: String = #fileID, line: UInt = #line) {
        log(.critical, message(), metadata: metadata(), file: file, line: line)
    }
}
