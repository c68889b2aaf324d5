import FixtureHeaderForge
import PluginAPI

/// A plugin as PluginAPI 3 built it: its ABI version, 3, where the header format is now.
struct OldHeaderPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-old-header", version: "1.0.0", provides: [])
    func registerServices(in registrar: ModuleRegistrar) throws {}
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer {
    return UnsafeRawPointer(forgedHeader(of: OldHeaderPlugin.self, format: 3))
}
