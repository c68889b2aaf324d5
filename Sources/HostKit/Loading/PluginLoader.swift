@_spi(HostKit) import PluginAPI

/// Opens plugin files and reads their descriptors, checking the fixed header before anything else.
/// Each real path is opened and asked for its descriptor once per process.
enum PluginLoader {
    private typealias Entry = @convention(c) () -> UnsafeRawPointer?
    /// Each real path opened so far, and what came of it.
    private static let opened = Lock<[String: Result<LoadedPlugin, PluginLoadError>]>([:])

    static func load(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginLoadError> {
        if let known = opened.withLock({ $0[candidate.realPath] }) { return known }
        // dlopen runs the library's initializers: done outside the lock, then the first result wins.
        let result = Result { () throws(PluginLoadError) in try open(candidate) }
        return opened.withLock { opened in
            if let known = opened[candidate.realPath] { return known }
            opened[candidate.realPath] = result
            return result
        }
    }

    /// What `candidate` says of itself, and whether it would be loaded: for a plugin refused only for
    /// its library versions, its metadata too, read as ``PluginHeader/checkedDescriptor(path:)``
    /// allows (the descriptor is an object of this process's PluginAPI, or it is not read).
    static func inspect(_ candidate: PluginCandidate) -> PluginInspection {
        switch load(candidate) {
        case let .success(plugin):
            return PluginInspection(path: candidate.realPath, plugin: plugin, refusal: nil)
        case let .failure(refusal):
            guard case .incompatibleLibraries = refusal,
                  let (library, header) = try? header(candidate),
                  let descriptor = try? header.checkedDescriptor(path: candidate.realPath) else {
                return PluginInspection(path: candidate.realPath, plugin: nil, refusal: refusal)
            }
            let plugin = LoadedPlugin(path: candidate.realPath, descriptor: descriptor, libraries: header.libraries,
                                      linkedLibraries: library.neededLibraries() ?? [])
            return PluginInspection(path: candidate.realPath, plugin: plugin, refusal: refusal)
        }
    }

    /// Opens the file and reads the header its entry returns.
    private static func header(_ candidate: PluginCandidate) throws(PluginLoadError) -> (DynamicLibrary, PluginHeader) {
        let path = candidate.realPath
        let library = try DynamicLibrary.open(path, dynamic: candidate.dynamic, allowUntrustedLibraries: candidate.allowUntrusted)
        guard let symbol = library.symbol(PluginABI.entrySymbol) else {
            throw .missingEntrySymbol(path: path, symbol: PluginABI.entrySymbol)
        }
        // Called only if it is a function of this very file: `dlsym` also finds a symbol of the
        // libraries the file links, and a data symbol of the entry's name would be jumped into.
        switch library.place(of: symbol) {
        case .ownFunction?: break
        case .elsewhere?: throw .missingEntrySymbol(path: path, symbol: PluginABI.entrySymbol)
        case .ownData?:
            throw .entryNotAFunction(path: path, symbol: PluginABI.entrySymbol,
                                     reason: "the file's symbol of that name is data, not a function")
        case nil:
            throw .entryNotAFunction(path: path, symbol: PluginABI.entrySymbol,
                                     reason: "the dynamic loader cannot say where it lies")
        }
        let entry = unsafeBitCast(symbol, to: Entry.self)
        guard let raw = entry() else { throw .entryReturnedNothing(path: path) }
        return (library, try PluginHeader.read(raw, path: path))
    }

    private static func open(_ candidate: PluginCandidate) throws(PluginLoadError) -> LoadedPlugin {
        let path = candidate.realPath
        let (library, header) = try header(candidate)
        // The runtime's own libraries report no version: asking each would search the plugin's
        // whole scope for a symbol that is not there (most of the version check's cost).
        let needed = library.neededLibraries()?.filter { !library.runtimeLibraries.contains($0) }
        let mismatches = LibraryCheck.mismatches(recorded: header.libraries, in: library, needed: needed)
        guard mismatches.isEmpty else { throw .incompatibleLibraries(path: path, mismatches: mismatches) }
        // Only now, with the header and every library version checked, is the Swift part touched.
        return LoadedPlugin(path: path, descriptor: try header.checkedDescriptor(path: path), libraries: header.libraries,
                            linkedLibraries: needed ?? [])
    }
}
