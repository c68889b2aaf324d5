/// The fixed, C-layout header a plugin's entry symbol returns: what a host reads before it touches
/// any Swift type of the plugin.
///
/// Layout, format 4 (little-endian, 8-byte aligned):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic: "SWPLUGIN" |
/// | 8 | 4 | format (PluginAPI before 4.0 wrote its ABI version here: 2 or 3) |
/// | 12 | 4 | header size in bytes (40) |
/// | 16 | 8 | pointer to the retained ``PluginDescriptor`` |
/// | 24 | 8 | pointer to the library records |
/// | 32 | 4 | number of library records (PluginAPI's first) |
/// | 36 | 4 | zero |
///
/// A library record is 16 bytes: a pointer to the library's name (UTF-8, NUL-terminated), then its
/// ``LibraryVersion/encoded`` version as compiled into the plugin.
///
/// Internal: only ``exportPlugin(_:)`` writes it; a host reads the layout with its own constants
/// (HostKit's `PluginHeader`), and a test holds the two equal. Everything here is
/// `@_alwaysEmitIntoClient`: the plugin writes the header with the layout and the versions it was
/// compiled with, not with those of the `libPluginAPI.so` it happens to be loaded next to.
@usableFromInline
enum PluginABI {
    /// The symbol every plugin exports.
    @usableFromInline @_alwaysEmitIntoClient
    static var entrySymbol: String { "swift_plugin_entry" }
    /// "SWPLUGIN" read as a little-endian integer.
    @usableFromInline @_alwaysEmitIntoClient
    static var magic: UInt64 { 0x4E49_4755_4C50_5753 }
    /// The header's layout; changes only when the layout does.
    @usableFromInline @_alwaysEmitIntoClient
    static var format: UInt32 { 4 }
    /// Size of the header in bytes.
    @usableFromInline @_alwaysEmitIntoClient
    static var headerSize: UInt32 { 40 }
    /// Size of one library record in bytes.
    @usableFromInline @_alwaysEmitIntoClient
    static var recordSize: Int { 16 }

    /// Writes a header; the result stays valid for the life of the process. The libraries are
    /// evaluated before the descriptor is made: a host may refuse the plugin on them alone.
    @usableFromInline @_alwaysEmitIntoClient
    static func writeHeader(format: UInt32, magic: UInt64, libraries: [LibraryVersion],
                            descriptor: @autoclosure () -> PluginDescriptor) -> UnsafeRawPointer {
        let records = UnsafeMutableRawPointer.allocate(byteCount: max(1, libraries.count) * recordSize, alignment: 8)
        for (index, library) in libraries.enumerated() {
            let name = Array(library.name.utf8) + [0]
            let copy = UnsafeMutableRawPointer.allocate(byteCount: name.count, alignment: 1)
            copy.copyMemory(from: name, byteCount: name.count)
            records.storeBytes(of: copy, toByteOffset: index * recordSize, as: UnsafeMutableRawPointer.self)
            records.storeBytes(of: library.encoded.littleEndian, toByteOffset: index * recordSize + 8, as: UInt64.self)
        }
        let header = UnsafeMutableRawPointer.allocate(byteCount: Int(headerSize), alignment: 8)
        header.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt64.self)
        header.storeBytes(of: format.littleEndian, toByteOffset: 8, as: UInt32.self)
        header.storeBytes(of: headerSize.littleEndian, toByteOffset: 12, as: UInt32.self)
        header.storeBytes(of: Unmanaged.passRetained(descriptor()).toOpaque(), toByteOffset: 16, as: UnsafeMutableRawPointer.self)
        header.storeBytes(of: records, toByteOffset: 24, as: UnsafeMutableRawPointer.self)
        header.storeBytes(of: UInt32(libraries.count).littleEndian, toByteOffset: 32, as: UInt32.self)
        header.storeBytes(of: UInt32(0), toByteOffset: 36, as: UInt32.self)
        return UnsafeRawPointer(header)
    }
}

/// The body of a plugin's entry symbol: a header for `plugin`, with the versions of PluginAPI and of
/// the plugin's ``Plugin/contractLibraries`` compiled into the plugin.
@_alwaysEmitIntoClient
public func exportPlugin<P: Plugin>(_ plugin: P.Type) -> UnsafeRawPointer {
    PluginABI.writeHeader(format: PluginABI.format, magic: PluginABI.magic,
                          libraries: [LibraryVersion.pluginAPI] + P.contractLibraries,
                          descriptor: PluginDescriptor(metadata: P.metadata) { P() })
}
