/// What a plugin tells a host before anything of it is registered.
public struct PluginMetadata: Sendable, Hashable {
    /// A unique, stable name, such as `greeter`.
    public let name: String
    /// The plugin's own version, for reports.
    public let version: String
    /// The store keys the plugin's module adds; the host refuses a module that adds others.
    public let provides: [String]
    /// The store keys of other plugins' services the plugin needs; the host registers those first.
    public let requires: [String]

    /// Metadata for a plugin named `name`.
    public init(name: String, version: String, provides: [String], requires: [String] = []) {
        self.name = name
        self.version = version
        self.provides = provides
        self.requires = requires
    }
}

/// A plugin: a ``Module`` a host can load from a shared library, with its ``PluginMetadata``.
///
/// Export it with one line in the plugin's library:
///
/// ```swift
/// @_cdecl("swift_plugin_entry")
/// public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(GreeterPlugin.self) }
/// ```
public protocol Plugin: Module, SendableMetatype {
    /// Name, version, provided and required keys.
    static var metadata: PluginMetadata { get }
    /// Makes the module the host registers.
    init()
}

extension Plugin {
    public var name: String { Self.metadata.name }
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

/// The fixed, C-layout header a plugin's entry symbol returns, and the version checks around it.
///
/// Layout (little-endian, 8-byte aligned), the same in every PluginAPI version:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | ``magic`` |
/// | 8 | 4 | ABI version compiled into the plugin |
/// | 12 | 4 | header size in bytes (24) |
/// | 16 | 8 | pointer to the retained ``PluginDescriptor`` |
///
/// Swift has no stable ABI between library versions here, so the host must compare the version before
/// it touches the descriptor; the version is inlined into the plugin's binary, not read from the
/// `libPluginAPI.so` the plugin happens to be loaded next to.
public enum PluginABI {
    /// The symbol every plugin exports.
    public static let entrySymbol = "swift_plugin_entry"
    /// "SWPLUGIN" read as a little-endian integer.
    public static let magic: UInt64 = 0x4E49_4755_4C50_5753
    /// Size of the header in bytes.
    public static let headerSize: UInt32 = 24
    /// The ABI version of this PluginAPI, as compiled into whoever uses it (host or plugin).
    /// Version 2 added the lifecycle hooks of ``Module``. Version 3: services are `Sendable`, providers
    /// hold a core class instead of a protocol existential (a plugin built for 2 that made its own
    /// provider crashed a host of 3), and PluginAPI is built for library evolution.
    @_alwaysEmitIntoClient
    public static var version: UInt32 { 3 }

    /// Writes a header for `descriptor`; the result stays valid for the life of the process.
    /// Compiled into the plugin (with ``exportPlugin(_:)``), so the version it writes is the plugin's.
    @usableFromInline @_alwaysEmitIntoClient
    static func writeHeader(for descriptor: PluginDescriptor, version: UInt32, magic: UInt64) -> UnsafeRawPointer {
        let header = UnsafeMutableRawPointer.allocate(byteCount: Int(headerSize), alignment: 8)
        header.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt64.self)
        header.storeBytes(of: version.littleEndian, toByteOffset: 8, as: UInt32.self)
        header.storeBytes(of: headerSize.littleEndian, toByteOffset: 12, as: UInt32.self)
        header.storeBytes(of: Unmanaged.passRetained(descriptor).toOpaque(), toByteOffset: 16, as: UnsafeMutableRawPointer.self)
        return UnsafeRawPointer(header)
    }

    /// A header that says whatever the caller likes: for test plugins that lie to a host.
    @_spi(Testing) @_alwaysEmitIntoClient
    public static func forgedHeader(for descriptor: PluginDescriptor, version: UInt32, magic: UInt64) -> UnsafeRawPointer {
        writeHeader(for: descriptor, version: version, magic: magic)
    }
}

/// The body of a plugin's entry symbol: a header for `plugin`, with this PluginAPI's ABI version
/// compiled into the plugin.
@_alwaysEmitIntoClient
public func exportPlugin<P: Plugin>(_ plugin: P.Type) -> UnsafeRawPointer {
    PluginABI.writeHeader(for: PluginDescriptor(metadata: P.metadata) { P() }, version: PluginABI.version,
                          magic: PluginABI.magic)
}
