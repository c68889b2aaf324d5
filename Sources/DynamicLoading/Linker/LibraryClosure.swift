import Foundation

/// The shared libraries the dynamic linker would newly map for a plugin, found as it finds them and
/// checked before `dlopen` as the plugin itself was: the whole path trusted (``PathTrust``, unless
/// untrusted files are allowed), a regular file (a pipe would hang the loader), ELF headers that fit
/// the file (a truncated one would kill the process with SIGBUS inside the loader).
///
/// The plugin is a copy in a ``ShadowFolder``: a library the loader will look for in a folder of the
/// copies (through `$ORIGIN`) is copied there from the same place beside the original, and it is the
/// copy that is checked and mapped. Libraries found elsewhere (an absolute run path,
/// `LD_LIBRARY_PATH`) are mapped from where they are, checked there.
///
/// The search follows glibc's (ld.so(8)), for what this model can decide exactly: breadth first, the
/// plugin's own `DT_NEEDED` names before those of the libraries they bring; for each object,
/// `LD_LIBRARY_PATH`, then its `DT_RUNPATH` (`$ORIGIN` is the folder the object was found in). What it
/// cannot decide exactly, it refuses, naming the entry (``SearchModel``): a name with a `/` or a `$`,
/// a `DT_RPATH` (searched through a chain of objects), a relative run path folder or one with another
/// `$` token (`$LIB`, `$PLATFORM`, or a word that only starts like `$ORIGIN`), a file in a subfolder
/// the loader searches first (hardware capabilities: `glibc-hwcaps`, `tls`, ...), a name the loader's
/// cache holds several builds of. After the run path, the loader's cache and its default folders
/// (``LoaderCache``, ``SearchModel/defaultFolders``). A name that a loaded object
/// answers to (its `DT_SONAME`, or the name it was loaded under: its file name, when a loaded object
/// links it by that name) maps nothing new; a found file that is loaded already (the same real path)
/// neither. After `dlopen`, ``unchecked(allowing:)`` says whether the loader mapped any file that was
/// not checked (the model and the loader disagreed): the plugin is then refused before its entry runs.
package struct LibraryClosure {
    /// How many objects were loaded when the closure was computed: those after are new.
    private let loadedBefore: Int
    /// The libraries to be newly mapped, by real path (a copy's, for a copied one), in the order the
    /// loader maps them.
    private(set) var libraries: [String] = []
    /// The names this closure looked up: what the plugin's `dlopen` may newly map.
    private var sought: Set<String> = []
    /// The names the libraries it found will answer to once mapped: each one's name and soname.
    private var answered: Set<String> = []
    /// The file each name looked up was found as (a copy's path, for a copied one), mapped already or not.
    private var located: [String: String] = [:]
    private let allowUntrusted: Bool
    private let shadow: ShadowFolder?
    /// The operator's check of each library newly mapped, if any.
    private let fileCheck: FileCheck?
    /// The file each library mapped from where it lies (not a copy) was when it was checked, by real
    /// path: one renamed over it before `dlopen` is another file.
    private var checkedFiles: [String: FileIdentity] = [:]

    /// Finds and checks every library the plugin at `image` (the file `dlopen` gets; reported as
    /// `path`), whose dynamic section is `dynamic`, would newly map, copying into `shadow` those the
    /// loader will find there, and showing each to `fileCheck`. Throws
    /// ``LoadingError/libraryRefused(path:library:file:reason:)`` for the first one that is missing,
    /// refused, or found where this model cannot be sure.
    package init(plugin image: String, reportedAs path: String, dynamic: ELFCheck.DynamicSection, allowUntrusted: Bool,
         shadow: ShadowFolder?, fileCheck: FileCheck? = nil) throws(LoadingError) {
        loadedBefore = LoadedObjects.count()
        self.allowUntrusted = allowUntrusted
        self.shadow = shadow
        self.fileCheck = fileCheck
        do {
            try SearchModel.checkObject(dynamic)
        } catch {
            throw .notASharedLibrary(path: path, reason: "the dynamic linker would search for its libraries in a way this "
                                     + "host cannot model exactly: " + error.reason)
        }
        LoadedObjects.note(needed: dynamic.needed, of: image)
        // Breadth first, as the loader maps: an object's needs are looked up before their own needs.
        var queue: [(origin: String, dynamic: ELFCheck.DynamicSection, object: String)] = [(Paths.folder(of: image), dynamic, path)]
        var next = 0
        while next < queue.count {
            let (origin, dynamic, object) = queue[next]
            next += 1
            for name in dynamic.needed where !answered.contains(name) && !LoadedObjects.answer(name) {
                if let found = try find(name, origin: origin, dynamic: dynamic, object: object, plugin: path) {
                    queue.append(found)
                }
            }
        }
    }

    /// Finds and checks the library `name`, needed by `object` (an original path) in `origin`;
    /// returns its folder, dynamic section and path if the loader will newly map it, `nil` if the
    /// file is loaded already.
    private mutating func find(_ name: String, origin: String, dynamic: ELFCheck.DynamicSection, object: String,
                               plugin: String) throws(LoadingError)
        -> (origin: String, dynamic: ELFCheck.DynamicSection, object: String)? {
        sought.insert(name)
        answered.insert(name)
        let found: Location?
        do {
            found = try Self.find(name, origin: origin, dynamic: dynamic, shadow: shadow)
        } catch {
            throw .libraryRefused(path: plugin, library: name, file: nil,
                                  reason: "looked for in a way this host cannot model exactly, so it is not loaded: "
                                  + error.reason + (object == plugin ? "" : " (in \(object))"))
        }
        guard let location = found else {
            throw .libraryRefused(path: plugin, library: name, file: nil, reason:
                "not found where the dynamic linker looks for it (\(SearchModel.describe(origin: origin, dynamic: dynamic))): "
                + "ship it beside the plugin")
        }
        let refuse = { (reason: String) in
            LoadingError.libraryRefused(path: plugin, library: name, file: location.original, reason: reason)
        }
        let real: String
        do {
            real = String(decoding: try Posix.realpath(location.original), as: UTF8.self)
        } catch {
            throw refuse("its real path cannot be read: \(error.reason)")
        }
        let mapped = location.isCopy ? location.loaderPath : real
        located[name] = mapped
        if libraries.contains(mapped) || LoadedObjects.contain(mapped) { return nil }
        let linked: ELFCheck.DynamicSection
        do {
            let checked = try Self.check(location, real: real, allowUntrusted: allowUntrusted, shadow: shadow,
                                         fileCheck: fileCheck.map { ($0, plugin) })
            linked = checked.dynamic
            if !location.isCopy { checkedFiles[real] = checked.identity }
        } catch {
            throw refuse(error.reason)
        }
        do {
            try SearchModel.checkObject(linked)
        } catch {
            throw refuse("looked for in a way this host cannot model exactly, so it is not loaded: " + error.reason)
        }
        if let soname = linked.soname { answered.insert(soname) }
        libraries.append(mapped)
        LoadedObjects.note(needed: linked.needed, of: mapped)
        // `$ORIGIN` of a library is the folder it was found in (a symlink's, not its target's).
        return (Paths.folder(of: location.loaderPath), linked, location.original)
    }

    /// The file the plugin's `dlopen` would bind the library name `name` to (a copy's path, for a copied
    /// one), checked or loaded already, if the closure looked it up: `nil` for a name no object of the
    /// closure links, or one a loaded object answers to.
    package func file(named name: String) -> String? { located[name] }

    /// The libraries to be newly mapped under a name that a library opened by its path holds already
    /// (``LoadedObjects/opened(as:)``, a contract library of a plugin in a process of its own): that one
    /// answers to its path only, so the loader would map this file beside it, a second copy of one
    /// module. Each with the name and the file opened by path.
    package func secondCopies() -> [(name: String, file: String, opened: String)] {
        located.compactMap { name, file in
            guard libraries.contains(file), let opened = LoadedObjects.opened(as: name), opened != file else { return nil }
            return (name, file, opened)
        }.sorted { $0.name < $1.name }
    }

    /// Where a library was found: the path the loader opens, and the file it stands for.
    package struct Location {
        /// The path the dynamic linker will open: in a ``ShadowFolder`` for a library beside the copies.
        package let loaderPath: String
        /// The path the file was found at among the originals: what is trusted, copied and reported.
        package let original: String
        /// Whether the loader opens a copy of `original` (made or to be made).
        package var isCopy: Bool { loaderPath != original }
    }

    /// Why a library found for a plugin may not be mapped.
    package struct Refusal: Error {
        package let reason: String
    }

    /// Checks the library at `location` (the real path of its original `real`) as the plugin itself
    /// is checked: a regular file (a pipe would hang the loader), a trusted path unless
    /// `allowUntrusted`, ELF headers that fit the file. A library the loader finds among the copies
    /// is copied into `shadow` first, and its copy is read; then the opened file is shown to
    /// `fileCheck`'s check, as a library of its plugin. Returns its dynamic section and the file
    /// read (device, inode, size, time), from one opening of it.
    package static func check(_ location: Location, real: String, allowUntrusted: Bool, shadow: ShadowFolder?,
                              fileCheck: (check: FileCheck, plugin: String)? = nil) throws(Refusal)
        -> (dynamic: ELFCheck.DynamicSection, identity: FileIdentity) {
        guard let status = FileStatus(real), status.isRegularFile else {
            throw Refusal(reason: "not a regular file (\(FileStatus(real)?.kind ?? "gone"))")
        }
        if !allowUntrusted, let reason = PathTrust.problem(location.original) { throw Refusal(reason: reason) }
        var read = real
        if location.isCopy, let shadow {
            do {
                read = try shadow.copy(real, as: location.original, expected: status.identity).image
            } catch {
                throw Refusal(reason: error.reason)
            }
        }
        let descriptor: Int32
        do {
            descriptor = try Posix.open(read, O_RDONLY | O_NOFOLLOW)
        } catch {
            throw Refusal(reason: "cannot be read: \(error.reason)")
        }
        defer { Posix.close(descriptor) }
        guard let info = try? Posix.fstat(descriptor), info.st_mode & S_IFMT == S_IFREG else {
            throw Refusal(reason: "not a regular file")
        }
        let dynamic: ELFCheck.DynamicSection
        do {
            dynamic = try ELFCheck.read(descriptor, path: read, comment: false, symbols: false).dynamic
        } catch {
            throw Refusal(reason: error.reason)
        }
        // A file mapped where it lies could be written into between its check and `dlopen` (or later,
        // into pages not yet read) by the host's own user, if that user owns it or is root: under a
        // check of the operator's, such a file is not mapped at all (trust keeps every other writer out).
        if fileCheck != nil, !location.isCopy, info.st_uid == Posix.effectiveUser || Posix.effectiveUser == 0 {
            throw Refusal(reason: "it would be mapped from where it lies, not copied (it is not beside the plugin), and "
                          + "this host's user could write into it after the file check read it: "
                          + "ship it beside the plugin, where the host maps a copy of what it checked")
        }
        if let fileCheck, let reason = fileCheck.check.refusal(location.original, fileCheck.plugin, descriptor) {
            throw Refusal(reason: reason)
        }
        return (dynamic, FileIdentity(info))
    }

    /// The files the loader mapped since the closure was computed that were not checked: one renamed
    /// over a checked library's path in between (another device or inode where it is mapped), or one
    /// under a name the closure looked for that is neither `allowed` (the plugin) nor one of its
    /// checked libraries. (Objects mapped meanwhile under other names are another thread's loads.)
    package func unchecked(allowing allowed: String) -> [String] {
        // A library mapped from where it lies, whose path now names another file than the one checked.
        let mapped = MappedFiles.files(at: Set(checkedFiles.keys))
        let replaced = checkedFiles.filter { real, checked in
            mapped[real].map { $0.device != checked.device || $0.inode != checked.inode } ?? false
        }.keys
        if !replaced.isEmpty { return replaced.sorted() }
        return LoadedObjects.added(since: loadedBefore).filter { real, answersTo in
            real != allowed && !libraries.contains(real) && !answersTo.isDisjoint(with: sought)
        }.map(\.real).sorted()
    }

    /// Where the loader finds `name` for an object in `origin` with `dynamic`, or `nil`; a folder of
    /// the copies in `shadow` holds what lies at the same place beside the originals (copied when it
    /// is checked). Throws what this model cannot decide exactly (``SearchModel``).
    package static func find(_ name: String, origin: String, dynamic: ELFCheck.DynamicSection,
                     shadow: ShadowFolder?) throws(SearchModel.Refusal) -> Location? {
        for folder in try SearchModel.folders(for: name, origin: origin, dynamic: dynamic) {
            try SearchModel.checkSubfolders(of: folder, for: name)
            let path = folder + "/" + name
            if let shadow, let original = shadow.original(ofPathInside: path) {
                // A copy made already (this load's copy of a plugin file, say) is what the loader finds.
                if FileStatus(path) != nil || FileStatus(original) != nil {
                    return Location(loaderPath: shadow.image(of: original), original: original)
                }
            } else if FileStatus(path) != nil {
                return Location(loaderPath: path, original: path)
            }
        }
        // Then the loader's cache, then its default folders: libraries of the system, which the
        // loader maps from where they lie (unless the object forbids them, DF_1_NODEFLIB).
        if dynamic.noDefaultLibraries { return nil }
        if let cached = try LoaderCache.path(of: name), FileStatus(cached) != nil {
            return Location(loaderPath: cached, original: cached)
        }
        for folder in SearchModel.defaultFolders {
            try SearchModel.checkSubfolders(of: folder, for: name)
            if FileStatus(folder + "/" + name) != nil { return Location(loaderPath: folder + "/" + name, original: folder + "/" + name) }
        }
        return nil
    }
}
