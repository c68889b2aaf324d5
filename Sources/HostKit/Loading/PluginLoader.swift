internal import DynamicLoading
@_spi(HostKit) import PluginAPI
import Glibc

/// Opens plugin files and reads their descriptors, checking the fixed header before anything else.
/// Each file (by the identity discovery read: device, inode, size and modification time) is opened
/// and asked for its descriptor once per process. What `dlopen` gets is the file's copy in a
/// ``ShadowFolder``, a new file for each new version: the loader never matches it with an image it
/// mapped before, and nothing written into the original reaches a mapped image.
enum PluginLoader {
    private struct State {
        /// What came of each file opened: the plugin, or the refusal (with what the plugin says of
        /// itself when its descriptor could be read safely). Whether a file was opened at all is
        /// ``CheckedFiles``' to answer: each opening is told to it.
        var opened: [FileIdentity: PluginInspection] = [:]
        /// Every image mapped, by the loader's handle.
        var images: Set<UInt> = []
        /// The copy each file was mapped from by a load with a file check, held open (its name goes
        /// with its load's folder): the bytes a later load's check reads when it meets the file
        /// again (PH-0032). Plugins are never unloaded, so none is closed: one descriptor per image
        /// mapped under a check. A load without a check keeps none, so a host without one holds no
        /// more descriptors after a hundred upgrades than before; a later load with a check that
        /// meets such a file refuses it, since what was mapped cannot be shown to its check.
        var mappedCopies: [FileIdentity: Int32] = [:]
    }

    private static let state = Lock(State())

    /// How many plugin images this process has mapped: each stays mapped until the process ends,
    /// served or not (a version replaced, withdrawn or refused after its file was opened).
    static var imageCount: Int { state.withLock { $0.images.count } }

    /// The plugin in `candidate`'s file, or why it is refused; each library it brings is shown to
    /// `fileCheck` before it is mapped.
    static func load(_ candidate: PluginCandidate, fileCheck: FileCheck? = nil) -> Result<LoadedPlugin, PluginLoadError> {
        Result { () throws(PluginLoadError) in try inspect(candidate, fileCheck: fileCheck).get() }
    }

    /// What `candidate` says of itself, and whether it would be loaded: for a plugin refused only for
    /// its library versions, its metadata too, read as ``PluginHeader/checkedDescriptor(path:)``
    /// allows (the descriptor is an object of this process's PluginAPI, or it is not read).
    ///
    /// A file opened before (the same identity) is not opened again: found at another path (moved,
    /// or linked there), it is the same plugin under its new path.
    static func inspect(_ candidate: PluginCandidate, fileCheck: FileCheck? = nil) -> PluginInspection {
        let known = candidate.identity.flatMap { identity in state.withLock { $0.opened[identity] } }
        if let known { return recheck(known, candidate, fileCheck) }
        // dlopen runs the library's initializers: done outside the lock, then the first result wins.
        let (opening, handle) = open(candidate, fileCheck: fileCheck)
        // The copy mapped, held open for the checks of later loads that meet this file again; only by
        // a load with a check (a host that has one keeps having one).
        let copy = handle != nil && fileCheck != nil && candidate.image != candidate.realPath
            ? try? Posix.open(candidate.image, O_RDONLY | O_NOFOLLOW) : nil
        let inspection = state.withLock { state -> PluginInspection? in
            if let identity = candidate.identity, state.opened[identity] != nil { return nil }
            if let handle { state.images.insert(handle) }
            if let identity = candidate.identity, let copy { state.mappedCopies[identity] = copy }
            if let identity = candidate.identity {
                state.opened[identity] = opening
                // Told under this lock, so that no one sees the file opened here and not there.
                CheckedFiles.markOpened(identity)
            }
            return opening
        }
        if let inspection { return inspection }
        // Another load opened the same file meanwhile: its opening is the file's.
        if let copy { Posix.close(copy) }
        let first = candidate.identity.flatMap { identity in state.withLock { $0.opened[identity] } }
        return first.map { recheck($0, candidate, fileCheck) } ?? opening
    }

    /// What was found of `candidate`'s file when it was opened before, found again now: shown first to
    /// this load's `fileCheck`, if there is one, from the copy that was mapped (a file the process
    /// opened before its host had a check, or a plugin withdrawn and brought back, is checked as
    /// any new file is). Refused if the check refuses it or the copy cannot be shown.
    private static func recheck(_ known: PluginInspection, _ candidate: PluginCandidate,
                                _ fileCheck: FileCheck?) -> PluginInspection {
        guard let fileCheck, candidate.image != candidate.realPath, let identity = candidate.identity else {
            return known.found(at: candidate)
        }
        let copy = state.withLock { $0.mappedCopies[identity] }
        let refusal = copy.map { fileCheck.refusal(candidate.realPath, nil, $0) }
            ?? "the copy this process mapped of it cannot be shown to the check (it was mapped by a load without a file check, which keeps no copy open)"
        if let refusal {
            return PluginInspection(path: candidate.realPath, plugin: nil, refusal: .fileRefused(path: candidate.realPath, reason: refusal))
        }
        return known.found(at: candidate)
    }

    /// Opens the file and reads the header its entry returns.
    private static func header(_ candidate: PluginCandidate, fileCheck: FileCheck?, opened: inout UInt?) throws(PluginLoadError)
        -> (DynamicLibrary, PluginHeader) {
        let path = candidate.realPath
        // No entry function of its own (or no table to tell): not opened, nothing of it runs.
        if let refusal = candidate.entry.refusal(path: path) { throw PluginLoadError(refusal) }
        let library: DynamicLibrary
        do {
            library = try DynamicLibrary.open(candidate.image, reportedAs: path, dynamic: candidate.dynamic,
                                              allowUntrustedLibraries: candidate.allowUntrusted, shadow: candidate.shadow,
                                              fileCheck: fileCheck)
        } catch {
            throw PluginLoadError(error)
        }
        opened = library.handleID
        // An image mapped before (a file loaded already, not a copy): its entry is not called again.
        if state.withLock({ $0.images.contains(library.handleID) }) {
            throw .notASharedLibrary(path: path, reason: "the dynamic loader holds it loaded already")
        }
        // Called only if it is a function of this very file (``EntrySymbol``).
        let raw: UnsafeRawPointer?
        do {
            raw = try library.callEntry(reportedAs: path)
        } catch {
            throw PluginLoadError(error)
        }
        guard let raw else { throw .entryReturnedNothing(path: path) }
        return (library, try PluginHeader.read(raw, path: path))
    }

    /// Opens the file (its libraries checked first), reads its header and checks the library
    /// versions it records against the loaded copies; only then is its descriptor read.
    /// Also returns the loader's handle of the image it opened, if `dlopen` succeeded.
    private static func open(_ candidate: PluginCandidate, fileCheck: FileCheck?) -> (PluginInspection, UInt?) {
        let path = candidate.realPath
        let library: DynamicLibrary, header: PluginHeader
        var handle: UInt?
        do {
            (library, header) = try self.header(candidate, fileCheck: fileCheck, opened: &handle)
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
