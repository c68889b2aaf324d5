import PluginAPI

/// A copy of the header `exportPlugin(plugin)` writes, with the fields a test plugin lies about
/// changed: for fixtures that lie to a host. The layout (magic at 0, format at 8, library records
/// at 24 and their count at 32, 16 bytes a record: name pointer, encoded version) is written here on
/// purpose, apart from PluginAPI's: a host must refuse what does not match the layout it reads.
public func forgedHeader<P: Plugin>(of plugin: P.Type, format: UInt32? = nil, magic: UInt64? = nil,
                                    libraries: [LibraryVersion]? = nil) -> UnsafeMutableRawPointer {
    let honest = exportPlugin(plugin)
    let header = UnsafeMutableRawPointer.allocate(byteCount: 40, alignment: 8)
    header.copyMemory(from: honest, byteCount: 40)
    if let magic { header.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt64.self) }
    if let format { header.storeBytes(of: format.littleEndian, toByteOffset: 8, as: UInt32.self) }
    if let libraries {
        let records = UnsafeMutableRawPointer.allocate(byteCount: max(1, libraries.count) * 16, alignment: 8)
        for (index, library) in libraries.enumerated() {
            let name = Array(library.name.utf8CString)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: name.count)
            copy.initialize(from: name, count: name.count)
            records.storeBytes(of: UnsafeMutableRawPointer(copy), toByteOffset: index * 16, as: UnsafeMutableRawPointer.self)
            records.storeBytes(of: library.encoded.littleEndian, toByteOffset: index * 16 + 8, as: UInt64.self)
        }
        header.storeBytes(of: records, toByteOffset: 24, as: UnsafeMutableRawPointer.self)
        header.storeBytes(of: UInt32(libraries.count).littleEndian, toByteOffset: 32, as: UInt32.self)
    }
    return header
}
