import FixtureHeaderForge
import PluginAPI

/// A plugin whose header does not start with the plugin magic.
struct BadMagicPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-bad-magic", version: "1.0.0", provides: [])
    func registerServices(in registrar: ModuleRegistrar) throws {}
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer {
    return UnsafeRawPointer(forgedHeader(of: BadMagicPlugin.self, magic: 0xDEAD_BEEF))
}
