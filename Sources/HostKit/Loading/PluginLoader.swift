@_spi(HostKit) import PluginAPI

/// Opens plugin files and reads their descriptors, checking the fixed header before anything else.
/// Each file (each real path with the identity discovery read) is opened and asked for its
/// descriptor once per process; a path whose file was replaced since is opened again, as a new image.
enum PluginLoader {
    private typealias Entry = @convention(c) () -> UnsafeRawPointer?

    /// What one real path held each time it was opened, oldest first.
    private struct Opened {
        /// The file discovery checked, and what came of it: the plugin, or the refusal (with what the
        /// plugin says of itself when its descriptor could be read safely).
        var files: [(identity: FileIdentity?, inspection: PluginInspection)] = []
        /// The file of the image last mapped from the path.
        var mapped: FileIdentity?
        /// How many times the path was handed to `dlopen` (one file each): the next time under another
        /// spelling. (A spelling the loader answered with an image it had is an alias of that image.)
        var opens: Int { files.count }
    }

    private struct State {
        var opened: [String: Opened] = [:]
        /// Every image mapped, by the loader's handle, and what it held: one handed back again is an
        /// image loaded before.
        var images: [UInt: PluginInspection] = [:]
    }

    private static let state = Lock(State())

    /// How many plugin images this process has mapped: each stays mapped until the process ends,
    /// served or not (a version replaced, withdrawn or refused after its file was opened).
    static var imageCount: Int { state.withLock { $0.images.count } }

    /// Whether `candidate`'s file (its path with the identity discovery read) was opened before.
    static func hasOpened(_ candidate: PluginCandidate) -> Bool {
        state.withLock { $0.opened[candidate.realPath]?.files.contains { $0.identity == candidate.identity } ?? false }
    }

    /// The plugin in `candidate`'s file, or why it is refused.
    static func load(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginLoadError> {
        Result { () throws(PluginLoadError) in try inspect(candidate).get() }
    }

    /// What `candidate` says of itself, and whether it would be loaded: for a plugin refused only for
    /// its library versions, its metadata too, read as ``PluginHeader/checkedDescriptor(path:)``
    /// allows (the descriptor is an object of this process's PluginAPI, or it is not read).
    ///
    /// A path opened before, whose file discovery now reads with another identity, was replaced: the
    /// dynamic loader would hand back the image it mapped from that path (it matches the name first),
    /// so the new file is opened under another spelling of its path (``spelling(of:image:)``: one per
    /// open), which the loader does not match, and which keeps the folder (`$ORIGIN`) the same. The
    /// loader also matches device and inode: a file mapped before under another path (moved, or
    /// linked) is that image, under its new path; new contents written into a mapped file are refused.
    static func inspect(_ candidate: PluginCandidate) -> PluginInspection {
        let path = candidate.realPath
        let (known, opened): (PluginInspection?, Opened) = state.withLock { state in
            let opened = state.opened[path] ?? Opened()
            return (opened.files.last { $0.identity == candidate.identity }?.inspection, opened)
        }
        if let known { return known }
        if let identity = candidate.identity, let mapped = opened.mapped, mapped.isSameFile(as: identity) {
            return PluginInspection(path: path, plugin: nil, refusal: .changedInPlace(path: path))
        }
        // dlopen runs the library's initializers: done outside the lock, then the first result wins.
        let (opening, handle) = open(candidate, spelling: spelling(of: path, image: opened.opens))
        return state.withLock { state in
            if let known = state.opened[path]?.files.last(where: { $0.identity == candidate.identity })?.inspection {
                return known
            }
            var result = opening
            if let handle, let image = state.images[handle] {
                // The loader matched the file itself: an image mapped before from another path.
                result = image.plugin?.path == path ? PluginInspection(path: path, plugin: nil, refusal: .changedInPlace(path: path))
                    : PluginInspection(path: path, plugin: image.plugin?.moved(to: candidate), refusal: image.refusal)
            } else if let handle {
                state.images[handle] = result
                state.opened[path, default: Opened()].mapped = candidate.identity
            }
            state.opened[path, default: Opened()].files.append((candidate.identity, result))
            return result
        }
    }

    /// The name `dlopen` gets for the `count`th open of the real path `path`: the path itself at
    /// first, then with `count` written in binary between the folder and the file name, a 1 as `./`
    /// and a 0 as `/` (`dir/./name`, `dir/.//name`, `dir/././name`, ...): one name per count, each the
    /// same file in the same folder, and only about two bytes longer per doubling of the count (one
    /// more slash per open reached the system's path limit after some 4,000 upgrades of one path).
    static func spelling(of path: String, image count: Int) -> String {
        guard count > 0, let slash = path.lastIndex(of: "/") else { return path }
        let bits = String(count, radix: 2).map { $0 == "1" ? "./" : "/" }.joined()
        return path[...slash] + bits + path[path.index(after: slash)...]
    }

    /// Opens the file and reads the header its entry returns.
    private static func header(_ candidate: PluginCandidate, spelling: String,
                               opened: inout UInt?) throws(PluginLoadError) -> (DynamicLibrary, PluginHeader) {
        let path = candidate.realPath
        // No entry function of its own (or no table to tell): not opened, nothing of it runs.
        if let refusal = candidate.entry.refusal(path: path) { throw refusal }
        let library = try DynamicLibrary.open(path, as: spelling, dynamic: candidate.dynamic,
                                              allowUntrustedLibraries: candidate.allowUntrusted)
        opened = library.handleID
        // An image mapped before: what it held is known, and its entry is not called again.
        if state.withLock({ $0.images[library.handleID] != nil }) { throw .changedInPlace(path: path) }
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
    /// Also returns the loader's handle of the image it opened, if `dlopen` succeeded.
    private static func open(_ candidate: PluginCandidate, spelling: String) -> (PluginInspection, UInt?) {
        let path = candidate.realPath
        let library: DynamicLibrary, header: PluginHeader
        var handle: UInt?
        do {
            (library, header) = try self.header(candidate, spelling: spelling, opened: &handle)
        } catch {
            return (PluginInspection(path: path, plugin: nil, refusal: error), handle)
        }
        // The runtime's own libraries report no version: asking each would search the plugin's
        // whole scope for a symbol that is not there (most of the version check's cost).
        let needed = library.neededLibraries()?.filter { !library.runtimeLibraries.contains($0) }
        let (mismatches, copies) = LibraryCheck.check(recorded: header.libraries, in: library, needed: needed)
        // Only now, with the header and every library version checked, is the Swift part touched; for a
        // plugin refused for its versions only as far as showing what it says of itself.
        let refusal = mismatches.isEmpty ? nil : PluginLoadError.incompatibleLibraries(path: path, mismatches: mismatches)
        do {
            let descriptor = try header.checkedDescriptor(path: path)
            var plugin = LoadedPlugin(path: path, metadata: descriptor.metadata, libraries: header.libraries,
                                      linkedLibraries: needed ?? [], candidate: candidate) { descriptor.makeModule() }
            plugin.image = library.handleID
            plugin.copies = copies
            return (PluginInspection(path: path, plugin: plugin, refusal: refusal), handle)
        } catch {
            return (PluginInspection(path: path, plugin: nil, refusal: refusal ?? error), handle)
        }
    }
}
