@_spi(Testing) import PluginAPI

/// A plugin whose header does not start with the plugin magic.
struct BadMagicPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-bad-magic", version: "1.0.0", provides: [])
    func registerServices(in registrar: ModuleRegistrar) throws {}
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer {
    let descriptor = PluginDescriptor(metadata: BadMagicPlugin.metadata) { BadMagicPlugin() }
    return PluginABI.forgedHeader(for: descriptor, format: PluginABI.format, magic: 0xDEAD_BEEF, libraries: [.pluginAPI])
}
