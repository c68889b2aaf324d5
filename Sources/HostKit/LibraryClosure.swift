import CDynamicLinker
import Foundation
@_spi(HostKit) import PluginAPI

/// The shared libraries the dynamic linker would newly map for a plugin, found as it finds them and
/// checked before `dlopen` as the plugin itself was: the whole path trusted (``PathTrust``, unless
/// untrusted files are allowed), a regular file (a pipe would hang the loader), ELF headers that fit
/// the file (a truncated one would kill the process with SIGBUS inside the loader).
///
/// The search follows glibc's (ld.so(8)): breadth first, the plugin's own `DT_NEEDED` names before
/// those of the libraries they bring; for each object, its `DT_RPATH` when it has no `DT_RUNPATH`,
/// `LD_LIBRARY_PATH` (`:` or `;` between folders, an empty or relative one taken from the current
/// folder), its `DT_RUNPATH`, the folders of `/etc/ld.so.conf`, then `/lib` and `/usr/lib` (with
/// their multiarch folders); `$ORIGIN` is the folder the object was found in. A name that a loaded
/// object answers to (its `DT_SONAME`, or the name it was loaded under: its file name, when a loaded
/// object links it by that name) maps nothing new; a found file that is loaded already (the same
/// real path) neither. After `dlopen`, ``unchecked(allowing:)`` says whether the loader mapped any
/// file that was not checked (one replaced in between, or a search this model got wrong): the
/// plugin is then refused before its entry runs.
struct LibraryClosure {
    /// How many objects were loaded when the closure was computed: those after are new.
    private let loadedBefore: Int
    /// The libraries to be newly mapped, by real path, in the order the loader maps them.
    private(set) var libraries: [String] = []
    /// The names this closure looked up: what the plugin's `dlopen` may newly map.
    private var sought: Set<String> = []
    /// The names the libraries it found will answer to once mapped: each one's name and soname.
    private var answered: Set<String> = []
    private let allowUntrusted: Bool

    /// Finds and checks every library the plugin at `path` (whose dynamic section is `dynamic`) would
    /// newly map. Throws ``PluginLoadError/libraryRefused(path:library:file:reason:)`` for the first
    /// one that is missing or refused.
    init(plugin path: String, dynamic: ELFCheck.DynamicSection, allowUntrusted: Bool) throws(PluginLoadError) {
        loadedBefore = LoadedObjects.count()
        self.allowUntrusted = allowUntrusted
        // Breadth first, as the loader maps: an object's needs are looked up before their own needs.
        var queue: [(origin: String, dynamic: ELFCheck.DynamicSection)] = [(Self.folder(of: path), dynamic)]
        var next = 0
        while next < queue.count {
            let (origin, dynamic) = queue[next]
            next += 1
            for name in dynamic.needed where !answered.contains(name) && !LoadedObjects.answer(name) {
                if let found = try find(name, origin: origin, dynamic: dynamic, plugin: path) {
                    queue.append(found)
                }
            }
        }
    }

    /// Finds and checks the library `name`, needed by an object in `origin`; returns its folder and
    /// dynamic section if the loader will newly map it, `nil` if the file is loaded already.
    private mutating func find(_ name: String, origin: String, dynamic: ELFCheck.DynamicSection,
                               plugin: String) throws(PluginLoadError) -> (origin: String, dynamic: ELFCheck.DynamicSection)? {
        sought.insert(name)
        answered.insert(name)
        guard let found = Self.find(name, origin: origin, dynamic: dynamic) else {
            throw .libraryRefused(path: plugin, library: name, file: nil, reason:
                "not found where the dynamic linker looks for it (\(Self.describeSearch(origin: origin, dynamic: dynamic))): "
                + "ship it beside the plugin")
        }
        let refuse = { (reason: String) in PluginLoadError.libraryRefused(path: plugin, library: name, file: found, reason: reason) }
        guard let real = Self.realPath(found) else { throw refuse("its real path cannot be read: \(String(cString: strerror(errno)))") }
        if libraries.contains(real) || LoadedObjects.contain(real) { return nil }
        guard let status = FileStatus(real), status.isRegularFile else {
            throw refuse("not a regular file (\(FileStatus(real)?.kind ?? "gone"))")
        }
        if !allowUntrusted, let reason = PathTrust.problem(found) { throw refuse(reason) }
        let linked: ELFCheck.DynamicSection
        do {
            linked = try ELFCheck.validate(real)
        } catch {
            guard case let .notASharedLibrary(_, reason) = error else { throw refuse(error.description) }
            throw refuse(reason)
        }
        if let soname = linked.soname { answered.insert(soname) }
        libraries.append(real)
        // `$ORIGIN` of a library is the folder it was found in (a symlink's, not its target's).
        return (Self.folder(of: found), linked)
    }

    private static func folder(of path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// The files the loader mapped since the closure was computed, under a name the closure looked
    /// for, that are neither `allowed` (the plugin) nor one of its checked libraries: a file that was
    /// not checked. (Objects mapped meanwhile under other names are another thread's loads.)
    func unchecked(allowing allowed: String) -> [String] {
        LoadedObjects.added(since: loadedBefore).filter { real, answersTo in
            real != allowed && !libraries.contains(real) && !answersTo.isDisjoint(with: sought)
        }.map(\.real).sorted()
    }

    /// Where the loader finds `name` for an object in `origin` with `dynamic`, or `nil`.
    private static func find(_ name: String, origin: String, dynamic: ELFCheck.DynamicSection) -> String? {
        if name.contains("/") { return FileStatus(name) == nil ? nil : name }
        return folders(origin: origin, dynamic: dynamic).lazy.map { "\($0)/\(name)" }.first { FileStatus($0) != nil }
    }

    /// The folders searched for a library linked by an object in `origin`, in glibc's order. An
    /// empty or relative folder is taken from the current folder, as the loader takes it.
    private static func folders(origin: String, dynamic: ELFCheck.DynamicSection) -> [String] {
        let expand = { (folder: String) in
            absolute(folder.replacing("${ORIGIN}", with: origin).replacing("$ORIGIN", with: origin))
        }
        return (dynamic.runpath == nil ? dynamic.rpath.map(expand) : []) + libraryPath.map(absolute)
            + (dynamic.runpath ?? []).map(expand) + systemFolders
    }

    /// `folder` from the current folder if it is empty or relative.
    private static func absolute(_ folder: String) -> String {
        guard !folder.hasPrefix("/") else { return folder }
        let current = FileManager.default.currentDirectoryPath
        return folder.isEmpty ? current : current + "/" + folder
    }

    private static func describeSearch(origin: String, dynamic: ELFCheck.DynamicSection) -> String {
        let own = (dynamic.runpath ?? dynamic.rpath).map { "'\($0)'" }
        return (own.isEmpty ? "no run path" : "run path \(own.joined(separator: ", "))")
            + (libraryPath.isEmpty ? "" : ", LD_LIBRARY_PATH") + ", the system's folders"
    }

    /// `LD_LIBRARY_PATH`, read once: the loader read it when the process started. glibc splits it at
    /// `:` and `;`, and an empty entry is the current folder.
    private static let libraryPath: [String] = {
        guard let value = getenv("LD_LIBRARY_PATH"), value.pointee != 0 else { return [] }
        return String(cString: value).split(separator: /[:;]/, omittingEmptySubsequences: false).map(String.init)
    }()

    /// The folders of `/etc/ld.so.conf` (and the files it includes), then the default ones.
    private static let systemFolders: [String] = {
        var folders: [String] = []
        var files = ["/etc/ld.so.conf"]
        var seen: Set<String> = []
        while let file = files.popLast() {
            guard seen.insert(file).inserted, let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            for raw in text.split(separator: "\n") {
                let line = raw.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("include ") {
                    files += expand(glob: String(line.dropFirst(8)).trimmingCharacters(in: .whitespaces)).reversed()
                } else if line.hasPrefix("/") {
                    folders.append(line)
                }
            }
        }
        #if arch(x86_64)
        let triple = "x86_64-linux-gnu"
        #else
        let triple = "aarch64-linux-gnu"
        #endif
        return folders + ["/lib/\(triple)", "/usr/lib/\(triple)", "/lib", "/usr/lib"]
    }()

    private static func expand(glob pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// The objects the dynamic loader has mapped, read from its list.
///
/// Asked twice per plugin (before and after its `dlopen`), so the list is kept for the process and
/// brought up to date by reading only the objects added since (the loader appends to its list, and
/// says how many objects were ever added and removed), and nothing of it is copied out but what a
/// question needs: a load of many plugins does not read or copy the whole, growing list again and
/// again.
enum LoadedObjects {
    /// The objects in the loader's order: each one's real path, and the names a library is linked by
    /// that it answers to (its file name and its soname).
    private struct List {
        var entries: [(real: String, names: Set<String>)] = []
        var realPaths: Set<String> = []
        var sonames: Set<String> = []
        var fileNames: Set<String> = []
        /// The `DT_NEEDED` names of the loaded objects, the program's included.
        var needed: Set<String> = []
        /// The names of the Swift runtime's libraries: those in the folder of `libswiftCore.so`.
        var runtimeLibraries: Set<String> = []
        var runtimeFolder: Substring?
        /// The loader's list as read: its length and its counts of objects added and removed.
        var count = 0, adds: UInt64 = 0, subs: UInt64 = 0
        /// Each path's real path, kept when the list is read again from the start (a loaded object
        /// stays where it was mapped from).
        var realPathOf: [String: String] = [:]
    }

    private static let list = Lock(List())

    /// How many objects are loaded now (the list is read again first).
    static func count() -> Int { read(updating: true) { $0.entries.count } }
    /// The objects loaded after the first `count` (the list is read again first).
    static func added(since count: Int) -> [(real: String, names: Set<String>)] {
        read(updating: true) { Array($0.entries.dropFirst(count)) }
    }
    /// Whether an object loaded at the last ``count()`` or ``added(since:)`` answers to the library
    /// name `name`: its soname, or its file name if some loaded object links it by that name (the
    /// loader matches the names an object was loaded under; a plugin opened by its path answers to
    /// no bare name).
    static func answer(_ name: String) -> Bool {
        read { $0.sonames.contains(name) || ($0.fileNames.contains(name) && $0.needed.contains(name)) }
    }
    /// Whether the file at the real path `real` was loaded at the last ``count()`` or ``added(since:)``.
    static func contain(_ real: String) -> Bool { read { $0.realPaths.contains(real) } }
    /// The names of the Swift runtime's libraries (beside `libswiftCore.so`) loaded at the last
    /// ``count()`` or ``added(since:)``, which report no library version.
    static func runtimeLibraries() -> Set<String> { read { $0.runtimeLibraries } }

    /// `body` of the list, brought up to date first if `updating`.
    private static func read<T>(updating: Bool = false, _ body: (List) -> T) -> T {
        list.withLock { list in
            if updating { update(&list) }
            return body(list)
        }
    }

    private static func update(_ list: inout List) {
        var paths = [UnsafePointer<CChar>?](repeating: nil, count: 64)
        var sonames = [UnsafePointer<CChar>?](repeating: nil, count: 64)
        var added: UInt64 = 0, removed: UInt64 = 0
        // Objects removed (another library's dlclose) shift the list: read it again from the start.
        // (Capacity 0: the walk stops at the first object, which carries the counts.)
        _ = dynamic_linker_loaded(&paths, &sonames, 0, 0, &added, &removed)
        if removed != list.subs || added == 0 { list = List(realPathOf: list.realPathOf) }
        guard added != list.adds || added == 0 else { return }
        while true {
            // The walk stops one object past the batch: `seen` says whether there are more.
            let seen = dynamic_linker_loaded(&paths, &sonames, paths.count, list.count, &added, &removed)
            let batch = max(0, min(seen - list.count, paths.count))
            for index in 0..<batch { record(paths[index], sonames[index], in: &list) }
            list.count += batch
            if seen <= list.count { break }
        }
        (list.adds, list.subs) = (added, removed)
    }

    private static func record(_ rawPath: UnsafePointer<CChar>?, _ soname: UnsafePointer<CChar>?, in list: inout List) {
        guard let rawPath, rawPath.pointee != 0 else {
            // The program itself (the first object, nameless): what it links is loaded by those names.
            if list.entries.isEmpty, list.needed.isEmpty, let program = try? ELFCheck.validate("/proc/self/exe") {
                list.needed.formUnion(program.needed)
            }
            return
        }
        let path = String(cString: rawPath)
        let fileName = String(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...])
        var answersTo: Set<String> = [fileName]
        if let soname { answersTo.insert(String(cString: soname)) }
        let real = list.realPathOf[path] ?? LibraryClosure.realPath(path) ?? path
        list.realPathOf[path] = real
        let folder = real[..<(real.lastIndex(of: "/") ?? real.startIndex)]
        list.entries.append((real, answersTo))
        list.realPaths.insert(real)
        list.fileNames.insert(fileName)
        if let soname { list.sonames.insert(String(cString: soname)) }
        // Read once per object from its file: the names it links, which the loader has mapped by them.
        if let linked = try? ELFCheck.validate(real) { list.needed.formUnion(linked.needed) }
        if list.runtimeFolder == nil, answersTo.contains("libswiftCore.so") {
            list.runtimeFolder = folder
            // Objects of that folder seen before it was known.
            for (other, names) in list.entries where other.hasPrefix(folder + "/") { list.runtimeLibraries.formUnion(names) }
        } else if folder == list.runtimeFolder {
            list.runtimeLibraries.formUnion(answersTo)
        }
    }
}
