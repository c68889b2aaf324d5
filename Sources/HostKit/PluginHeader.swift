import PluginAPI

/// The C-layout header a plugin's entry returned (`PluginABI`), read field by field and checked
/// before anything it points to is used. Nothing here touches a Swift type of the plugin.
struct PluginHeader {
    /// The libraries the plugin was compiled against, PluginAPI first.
    let libraries: [LibraryVersion]
    /// The plugin's retained `PluginDescriptor`, not yet cast.
    let descriptor: UnsafeRawPointer

    /// More records than any plugin needs: a larger count is a damaged header.
    private static let maximumRecords = 64
    /// The longest library name read.
    private static let maximumNameLength = 128

    /// Reads the header at `header`, which the plugin at `path` returned.
    static func read(_ header: UnsafeRawPointer, path: String) throws(PluginLoadError) -> PluginHeader {
        let magic = UInt64(littleEndian: header.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        guard magic == PluginABI.magic else { throw .badMagic(path: path, found: magic) }
        let format = UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard format == PluginABI.format else { throw .unsupportedHeader(path: path, format: format) }
        let malformed = { (reason: String) in PluginLoadError.malformedHeader(path: path, reason: reason) }
        let size = UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard size == PluginABI.headerSize else { throw malformed("header size \(size), format \(format) has \(PluginABI.headerSize)") }
        guard let descriptor = header.loadUnaligned(fromByteOffset: 16, as: UnsafeRawPointer?.self) else {
            throw malformed("no descriptor")
        }
        let count = Int(UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 32, as: UInt32.self)))
        guard (1...maximumRecords).contains(count) else { throw malformed("\(count) library records") }
        guard let records = header.loadUnaligned(fromByteOffset: 24, as: UnsafeRawPointer?.self) else {
            throw malformed("no library records")
        }
        var libraries: [LibraryVersion] = []
        for index in 0..<count {
            let record = records + index * PluginABI.recordSize
            guard let name = record.loadUnaligned(as: UnsafePointer<UInt8>?.self).flatMap(libraryName) else {
                throw malformed("library record \(index) has no valid name (letters, digits, _)")
            }
            let encoded = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
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

    /// The version `encoded` as ``LibraryVersion/encoded`` makes it, or `nil` if its top 16 bits are set.
    static func decode(_ name: String, _ encoded: UInt64) -> LibraryVersion? {
        guard encoded >> 48 == 0 else { return nil }
        return LibraryVersion(name, UInt16(truncatingIfNeeded: encoded >> 32), UInt16(truncatingIfNeeded: encoded >> 16),
                              UInt16(truncatingIfNeeded: encoded))
    }

    /// The NUL-terminated name at `bytes` if it is a short identifier (it becomes part of a symbol
    /// name and of messages), else `nil`. Reads at most one byte past the longest name.
    private static func libraryName(_ bytes: UnsafePointer<UInt8>) -> String? {
        var scalars: [UInt8] = []
        for offset in 0...maximumNameLength {
            let byte = bytes[offset]
            if byte == 0 { break }
            guard offset < maximumNameLength, isIdentifierByte(byte) else { return nil }
            scalars.append(byte)
        }
        return scalars.isEmpty ? nil : String(decoding: scalars, as: UTF8.self)
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
