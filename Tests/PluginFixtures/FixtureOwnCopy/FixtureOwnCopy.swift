import PluginAPI

/// A plugin that defines a library's version function itself, as one does that links its own copy
/// of a contract library statically: the host must not take its word for the library it carries.
struct OwnCopyPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-own-copy", version: "1.0.0", provides: [])
    static let contractLibraries = [LibraryVersion("SampleContracts", 1, 0, 0)]
    func registerServices(in registrar: ModuleRegistrar) throws {}
}

/// What a statically linked SampleContracts would bring along.
@c(swift_library_version_SampleContracts)
public func ownSampleContractsVersion() -> UInt64 { LibraryVersion("SampleContracts", 1, 0, 0).encoded }

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(OwnCopyPlugin.self) }
