@_spi(HostKit) import PluginAPI

/// Opens plugin files and reads their descriptors, checking the fixed header before anything else.
/// Each real path is opened and asked for its descriptor once per process.
enum PluginLoader {
    private typealias Entry = @convention(c) () -> UnsafeRawPointer?
    /// Each real path opened so far, and what came of it: the plugin, or the refusal (with what the
    /// plugin says of itself when its descriptor could be read safely). A file is opened once: a load
    /// and an inspection of it later read this.
    private static let opened = Lock<[String: PluginInspection]>([:])

    /// The plugin in `candidate`'s file, or why it is refused.
    static func load(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginLoadError> {
        Result { () throws(PluginLoadError) in try inspect(candidate).get() }
    }

    /// What `candidate` says of itself, and whether it would be loaded: for a plugin refused only for
    /// its library versions, its metadata too, read as ``PluginHeader/checkedDescriptor(path:)``
    /// allows (the descriptor is an object of this process's PluginAPI, or it is not read).
    static func inspect(_ candidate: PluginCandidate) -> PluginInspection {
        if let known = opened.withLock({ $0[candidate.realPath] }) { return known }
        // dlopen runs the library's initializers: done outside the lock, then the first result wins.
        let result = open(candidate)
        return opened.withLock { opened in
            if let known = opened[candidate.realPath] { return known }
            opened[candidate.realPath] = result
            return result
        }
    }

    /// Opens the file and reads the header its entry returns.
    private static func header(_ candidate: PluginCandidate) throws(PluginLoadError) -> (DynamicLibrary, PluginHeader) {
        let path = candidate.realPath
        let library = try DynamicLibrary.open(path, dynamic: candidate.dynamic, allowUntrustedLibraries: candidate.allowUntrusted)
        guard let symbol = library.symbol(PluginHeader.Layout.entrySymbol) else {
            throw .missingEntrySymbol(path: path, symbol: PluginHeader.Layout.entrySymbol)
        }
        // Called only if it is a function of this very file: `dlsym` also finds a symbol of the
        // libraries the file links, and a data symbol of the entry's name would be jumped into.
        switch library.place(of: symbol) {
        case .ownFunction?: break
        case .elsewhere?: throw .missingEntrySymbol(path: path, symbol: PluginHeader.Layout.entrySymbol)
        case .ownData?:
            throw .entryNotAFunction(path: path, symbol: PluginHeader.Layout.entrySymbol,
                                     reason: "the file's symbol of that name is data, not a function")
        case nil:
            throw .entryNotAFunction(path: path, symbol: PluginHeader.Layout.entrySymbol,
                                     reason: "the dynamic loader cannot say where it lies")
        }
        // The address is a function symbol in an executable segment of this very file (above), and
        // `exportPlugin` defines it as `@c () -> UnsafeRawPointer?` (PluginHeader.Layout.entrySymbol).
        let entry = unsafeBitCast(symbol, to: Entry.self)
        guard let raw = entry() else { throw .entryReturnedNothing(path: path) }
        return (library, try PluginHeader.read(raw, path: path))
    }

    /// Opens the file (its libraries checked first), reads its header and checks the library
    /// versions it records against the loaded copies; only then is its descriptor read.
    private static func open(_ candidate: PluginCandidate) -> PluginInspection {
        let path = candidate.realPath
        let library: DynamicLibrary, header: PluginHeader
        do {
            (library, header) = try self.header(candidate)
        } catch {
            return PluginInspection(path: path, plugin: nil, refusal: error)
        }
        // The runtime's own libraries report no version: asking each would search the plugin's
        // whole scope for a symbol that is not there (most of the version check's cost).
        let needed = library.neededLibraries()?.filter { !library.runtimeLibraries.contains($0) }
        let mismatches = LibraryCheck.mismatches(recorded: header.libraries, in: library, needed: needed)
        // Only now, with the header and every library version checked, is the Swift part touched; for a
        // plugin refused for its versions only as far as showing what it says of itself.
        let refusal = mismatches.isEmpty ? nil : PluginLoadError.incompatibleLibraries(path: path, mismatches: mismatches)
        do {
            let descriptor = try header.checkedDescriptor(path: path)
            let plugin = LoadedPlugin(path: path, metadata: descriptor.metadata, libraries: header.libraries,
                                      linkedLibraries: needed ?? [], candidate: candidate) { descriptor.makeModule() }
            return PluginInspection(path: path, plugin: plugin, refusal: refusal)
        } catch {
            return PluginInspection(path: path, plugin: nil, refusal: refusal ?? error)
        }
    }
}
