import FixtureHeaderForge
import PluginAPI

/// A plugin that says it was built against the next major version of PluginAPI and against a library
/// no process has; the host must refuse it, naming both, before it touches the descriptor.
struct WrongABIPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-wrong-abi", version: "1.0.0", provides: [])
    func registerServices(in registrar: ModuleRegistrar) throws {}
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer {
    let next = LibraryVersion("PluginAPI", LibraryVersion.pluginAPI.major + 1, 0, 0)
    return UnsafeRawPointer(forgedHeader(of: WrongABIPlugin.self, libraries: [next, LibraryVersion("NoSuchContracts", 1, 0, 0)]))
}
