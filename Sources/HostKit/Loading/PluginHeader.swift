internal import DynamicLoading
import PluginAPI

/// The C-layout header a plugin's entry returned (written by PluginAPI's `exportPlugin`), read field
/// by field and checked before anything it points to is used. Nothing here touches a Swift type of
/// the plugin.
struct PluginHeader {
    /// The header's layout, format 4, as this host reads it: PluginAPI writes it with constants of its
    /// own, compiled into each plugin (`PluginABI.swift` has the table); `HeaderLayoutTests` holds the
    /// two equal on a real plugin's header.
    enum Layout {
        /// "SWPLUGIN" read as a little-endian integer, at offset 0.
        static let magic: UInt64 = 0x4E49_4755_4C50_5753
        /// The layout's number, at offset 8 (``HeaderFormat``, which the refusal of another format tells).
        static let format = HeaderFormat.read
        /// The header's size in bytes, at offset 12.
        static let headerSize: UInt32 = 40
        /// The size of one library record (a name pointer, an encoded version).
        static let recordSize = 16
    }

    /// The libraries the plugin was compiled against, PluginAPI first.
    let libraries: [LibraryVersion]
    /// The plugin's retained `PluginDescriptor`, not yet cast.
    let descriptor: UnsafeRawPointer

    /// More records than any plugin needs: a larger count is a damaged header.
    private static let maximumRecords = 64
    /// The longest library name read.
    private static let maximumNameLength = 128

    /// Reads the header at `header`, which the plugin at `path` returned. Every byte is copied by
    /// ``ForeignMemory`` first: a pointer into memory the process cannot read is a malformed header,
    /// not a crash.
    static func read(_ header: UnsafeRawPointer, path: String) throws(PluginLoadError) -> PluginHeader {
        let malformed = { (reason: String) in PluginLoadError.malformedHeader(path: path, reason: reason) }
        let bytes = ForeignMemory.bytes(at: header, count: Int(PluginHeader.Layout.headerSize))
        guard bytes.count >= 8 else { throw malformed("the entry returned \(header), which is not readable memory") }
        let magic = UInt64(littleEndian: load(bytes, 0))
        guard magic == PluginHeader.Layout.magic else { throw .badMagic(path: path, found: magic) }
        guard bytes.count == PluginHeader.Layout.headerSize else {
            throw malformed("only \(bytes.count) of the header's \(PluginHeader.Layout.headerSize) bytes are readable")
        }
        let format = UInt32(littleEndian: load(bytes, 8))
        guard format == PluginHeader.Layout.format else { throw .unsupportedHeader(path: path, format: format) }
        let size = UInt32(littleEndian: load(bytes, 12))
        guard size == PluginHeader.Layout.headerSize else { throw malformed("header size \(size), format \(format) has \(PluginHeader.Layout.headerSize)") }
        // The plugin's pointers become raw pointers only to be handed to ForeignMemory: never loaded from.
        guard let descriptor = UnsafeRawPointer(bitPattern: UInt(load(bytes, 16) as UInt64)) else { throw malformed("no descriptor") }
        let count = Int(UInt32(littleEndian: load(bytes, 32)))
        guard (1...maximumRecords).contains(count) else { throw malformed("\(count) library records") }
        guard let records = UnsafeRawPointer(bitPattern: UInt(load(bytes, 24) as UInt64)) else {
            throw malformed("no library records")
        }
        let table = ForeignMemory.bytes(at: records, count: count * PluginHeader.Layout.recordSize)
        guard table.count == count * PluginHeader.Layout.recordSize else {
            throw malformed("the \(count) library records at \(records) are not readable memory")
        }
        var libraries: [LibraryVersion] = []
        for index in 0..<count {
            let offset = index * PluginHeader.Layout.recordSize
            guard let name = UnsafeRawPointer(bitPattern: UInt(load(table, offset) as UInt64)).flatMap(libraryName) else {
                throw malformed("library record \(index) has no valid name (letters, digits, _)")
            }
            let encoded = UInt64(littleEndian: load(table, offset + 8))
            guard let version = decode(name, encoded) else {
                throw malformed("library \(name): version 0x\(String(encoded, radix: 16))")
            }
            libraries.append(version)
        }
        guard libraries[0].name == LibraryVersion.pluginAPI.name else {
            throw malformed("the first library record is \(libraries[0].name), not PluginAPI")
        }
        var seen: Set<String> = []
        if let twice = libraries.first(where: { !seen.insert($0.name).inserted }) {
            throw malformed("\(twice.name) is recorded twice (PluginAPI is recorded always: list only contract libraries)")
        }
        return PluginHeader(libraries: libraries, descriptor: descriptor)
    }

    /// The descriptor, once its pointer checked out: aligned for an object, readable, and its first
    /// word (a Swift object's class) is the class metadata of this process's `PluginDescriptor`. No
    /// Swift cast runs on it: a cast reads the class of whatever the pointer points at, and crashes on
    /// what is not an object.
    func checkedDescriptor(path: String) throws(PluginLoadError) -> PluginDescriptor {
        let address = UInt(bitPattern: descriptor)
        guard address % UInt(MemoryLayout<UInt>.alignment) == 0 else {
            throw .malformedHeader(path: path, reason: "the descriptor pointer \(descriptor) is not aligned for an object")
        }
        let isa = ForeignMemory.bytes(at: descriptor, count: MemoryLayout<UInt>.size)
        guard isa.count == MemoryLayout<UInt>.size else {
            throw .malformedHeader(path: path, reason: "the descriptor pointer \(descriptor) points at no readable memory")
        }
        guard UInt(Self.load(isa, 0) as UInt64) == UInt(bitPattern: ObjectIdentifier(PluginDescriptor.self)) else {
            throw .foreignDescriptor(path: path)
        }
        // Its class word is this process's `PluginDescriptor` (a final class), and the plugin passed it
        // retained and never releases it (ARCHITECTURE.md, "The entry symbol"): a strong reference
        // taken unretained here keeps it alive as long as it is used.
        return Unmanaged<PluginDescriptor>.fromOpaque(descriptor).takeUnretainedValue()
    }

    /// The `T` at `offset` of `bytes`, which the caller made sure holds it.
    private static func load<T: FixedWidthInteger>(_ bytes: [UInt8], _ offset: Int) -> T {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// The version `encoded` as ``LibraryVersion/encoded`` makes it, or `nil` if its top 16 bits are set.
    static func decode(_ name: String, _ encoded: UInt64) -> LibraryVersion? {
        guard encoded >> 48 == 0 else { return nil }
        return LibraryVersion(name, UInt16(truncatingIfNeeded: encoded >> 32), UInt16(truncatingIfNeeded: encoded >> 16),
                              UInt16(truncatingIfNeeded: encoded))
    }

    /// The NUL-terminated name at `address` if it is a short identifier (it becomes part of a symbol
    /// name and of messages), else `nil`. Reads nothing past its NUL, and at most one byte past the
    /// longest name.
    private static func libraryName(_ address: UnsafeRawPointer) -> String? {
        guard let bytes = ForeignMemory.cString(at: address, maximumLength: maximumNameLength), !bytes.isEmpty,
              bytes.allSatisfy(isIdentifierByte) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ASCII letters, digits and `_`: the characters a library name may have.
    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
