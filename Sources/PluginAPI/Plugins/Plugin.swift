/// A plugin: a ``Module`` a host can load from a shared library, with its ``PluginMetadata``.
///
/// Export it with one line in the plugin's library:
///
/// ```swift
/// @c(swift_plugin_entry)
/// public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(GreeterPlugin.self) }
/// ```
public protocol Plugin: Module, SendableMetatype {
    /// Name, version, provided and required keys.
    static var metadata: PluginMetadata { get }
    /// The versions of the contract libraries the plugin uses, as compiled into it: for example
    /// `[.sampleContracts]`. The host refuses the plugin if the process's copy of one is of another
    /// major version or an older minor one, and refuses a plugin that links a versioned library
    /// without listing it here. PluginAPI's version is recorded always.
    static var contractLibraries: [LibraryVersion] { get }
    /// Makes the module the host registers.
    init()
}

extension Plugin {
    /// No contract library: the plugin uses PluginAPI's types only.
    public static var contractLibraries: [LibraryVersion] { [] }
}
