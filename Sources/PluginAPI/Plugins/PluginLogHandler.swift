/// Where the lines of plugins' logs (``PluginLog``) go: the host's side. HostKit's `PluginLogs` is
/// one, which `host` prints to standard error and `Integrations/` sends to a swift-log `Logger`.
public protocol PluginLogHandler: Sendable {
    /// The lowest level `plugin` writes at: asked before each line is made, so it may change.
    func level(of plugin: String) -> PluginLog.Level

    /// One line of `plugin`'s, at `version`, as the plugin wrote it: its text is the plugin's, so
    /// escape it where it is printed. `file` and `line` are where in the plugin it was written.
    func log(plugin: String, version: String, level: PluginLog.Level, message: String, metadata: [String: String],
             file: String, line: UInt)
}
