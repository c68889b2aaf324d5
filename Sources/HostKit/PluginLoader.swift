@_spi(HostKit) import PluginAPI

/// A plugin file whose header checked out: its path and descriptor.
public struct LoadedPlugin: Sendable {
    /// The real path of the file.
    public let path: String
    /// The plugin's descriptor, read after magic and ABI version matched.
    public let descriptor: PluginDescriptor
    /// The plugin's metadata.
    public var metadata: PluginMetadata { descriptor.metadata }
}

/// Opens plugin files and reads their descriptors, checking the fixed header before anything else.
/// Each real path is opened and asked for its descriptor once per process.
enum PluginLoader {
    private typealias Entry = @convention(c) () -> UnsafeRawPointer?
    /// Each real path opened so far, and what came of it.
    private static let opened = Lock<[String: Result<LoadedPlugin, PluginLoadError>]>([:])

    static func load(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginLoadError> {
        if let known = opened.withLock({ $0[candidate.realPath] }) { return known }
        // dlopen runs the library's initializers: done outside the lock, then the first result wins.
        let result = Result { () throws(PluginLoadError) in try open(candidate.realPath) }
        return opened.withLock { opened in
            if let known = opened[candidate.realPath] { return known }
            opened[candidate.realPath] = result
            return result
        }
    }

    private static func open(_ path: String) throws(PluginLoadError) -> LoadedPlugin {
        let library = try DynamicLibrary.open(path)
        guard let symbol = library.symbol(PluginABI.entrySymbol) else {
            throw .missingEntrySymbol(path: path, symbol: PluginABI.entrySymbol)
        }
        let entry = unsafeBitCast(symbol, to: Entry.self)
        guard let header = entry() else { throw .entryReturnedNothing(path: path) }
        let magic = UInt64(littleEndian: header.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        guard magic == PluginABI.magic else { throw .badMagic(path: path, found: magic) }
        let version = UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard version == PluginABI.version else {
            throw .abiMismatch(path: path, plugin: version, host: PluginABI.version)
        }
        let size = UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard size >= PluginABI.headerSize,
              let swiftPart = header.loadUnaligned(fromByteOffset: 16, as: UnsafeRawPointer?.self)
        else { throw .entryReturnedNothing(path: path) }
        // Only now, with magic and version matching, is the Swift part touched.
        let object = Unmanaged<AnyObject>.fromOpaque(swiftPart).takeUnretainedValue()
        guard let descriptor = object as? PluginDescriptor else { throw .foreignDescriptor(path: path) }
        return LoadedPlugin(path: path, descriptor: descriptor)
    }
}
