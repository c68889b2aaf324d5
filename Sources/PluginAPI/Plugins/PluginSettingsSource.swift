/// Where a host's plugin settings come from: its operator's configuration. HostKit's
/// `PluginSettingsFile` is one (a JSON file, `host --config`), and `Integrations/` reads
/// swift-configuration's providers (files and the environment) through one.
public protocol PluginSettingsSource: Sendable {
    /// The value of `key` in `plugin`'s settings, as text, or `nil` if it is unset. `plugin` is the
    /// name the host read from the plugin's metadata, and `key` is the plugin's own: a source answers
    /// from that plugin's settings only, whatever the key holds (`..`, dots, another plugin's name).
    func value(forKey key: String, of plugin: String) throws -> String?

    /// Called as each load and reload of the host begins, before its plugins read: a source that reads
    /// a file reads it again here, so that an edit comes in with the next reload. If it throws, the
    /// source keeps the values it had, and the host reports why. Does nothing unless implemented.
    func loadBegins() throws
}

extension PluginSettingsSource {
    /// Nothing to read again.
    public func loadBegins() throws {}
}
