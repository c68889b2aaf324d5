@_spi(Testing) import PluginAPI

/// A plugin that claims to be built for a future PluginAPI ABI; the host must refuse it unread.
struct WrongABIPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-wrong-abi", version: "1.0.0", provides: [])
    func registerServices(in registrar: ModuleRegistrar) throws {}
}

@_cdecl("swift_plugin_entry")
public func swiftPluginEntry() -> UnsafeRawPointer {
    let descriptor = PluginDescriptor(metadata: WrongABIPlugin.metadata) { WrongABIPlugin() }
    return PluginABI.forgedHeader(for: descriptor, version: PluginABI.version + 998, magic: PluginABI.magic)
}
