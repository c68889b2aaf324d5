/// A setting that could not be read: which plugin read which key, and why. Its value is never in it.
public struct PluginSettingsError: Error, CustomStringConvertible {
    /// The plugin that read it.
    public let plugin: String
    /// The key it read.
    public let key: String
    /// Why it could not be read.
    public let reason: String

    /// `plugin 'NAME' setting 'KEY': REASON`.
    public var description: String { "plugin '\(plugin)' setting '\(key)': \(reason)" }
}
