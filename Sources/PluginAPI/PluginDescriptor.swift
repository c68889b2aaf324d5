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
    public var name: String { Self.metadata.name }

    /// No contract library: the plugin uses PluginAPI's types only.
    public static var contractLibraries: [LibraryVersion] { [] }
}

/// The Swift part of a plugin's descriptor, read by a host only after the fixed header checked out.
public final class PluginDescriptor: Sendable {
    /// The plugin's metadata.
    public let metadata: PluginMetadata
    private let make: @Sendable () -> any Module

    /// A descriptor whose module `make` makes.
    public init(metadata: PluginMetadata, make: @escaping @Sendable () -> any Module) {
        self.metadata = metadata
        self.make = make
    }

    /// A new instance of the plugin's module.
    public func makeModule() -> any Module {
        make()
    }
}
