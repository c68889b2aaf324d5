@_spi(HostKit) import PluginAPI

/// A plugin file whose header checked out: its path and descriptor.
public struct LoadedPlugin: Sendable {
    /// The real path of the file.
    public let path: String
    /// The plugin's descriptor, read after its header and library versions checked out.
    public let descriptor: PluginDescriptor
    /// The libraries the plugin was compiled against, as its header records them: PluginAPI first.
    public let libraries: [LibraryVersion]
    /// The file names of the shared libraries the plugin links (its `DT_NEEDED` entries).
    public internal(set) var linkedLibraries: [String] = []
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
        guard let raw = entry() else { throw .entryReturnedNothing(path: path) }
        let header = try PluginHeader.read(raw, path: path)
        let needed = library.neededLibraries()
        let mismatches = LibraryCheck.mismatches(recorded: header.libraries, in: library, needed: needed)
        guard mismatches.isEmpty else { throw .incompatibleLibraries(path: path, mismatches: mismatches) }
        // Only now, with the header and every library version checked, is the Swift part touched.
        return LoadedPlugin(path: path, descriptor: try header.checkedDescriptor(path: path), libraries: header.libraries,
                            linkedLibraries: needed ?? [])
    }
}
