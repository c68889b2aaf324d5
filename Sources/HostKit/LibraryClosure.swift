import CDynamicLinker
import Foundation
@_spi(HostKit) import PluginAPI

/// The shared libraries the dynamic linker would newly map for a plugin, found as it finds them and
/// checked before `dlopen` as the plugin itself was: the whole path trusted (``PathTrust``, unless
/// untrusted files are allowed), a regular file (a pipe would hang the loader), ELF headers that fit
/// the file (a truncated one would kill the process with SIGBUS inside the loader).
///
/// The search follows glibc's order for each library that links another (ld.so(8)): its `DT_RPATH`
/// when it has no `DT_RUNPATH`, `LD_LIBRARY_PATH`, its `DT_RUNPATH`, the folders of
/// `/etc/ld.so.conf`, then `/lib` and `/usr/lib` (with their multiarch folders); `$ORIGIN` is the
/// folder of the library's real path. A name that a loaded object already answers to (its file name
/// or `DT_SONAME`) maps nothing new. After `dlopen`, ``unchecked(allowing:)`` says whether the
/// loader mapped any file that was not checked (one replaced in between, or a search this model
/// got wrong): the plugin is then refused before its entry runs.
struct LibraryClosure {
    /// What was loaded when the closure was computed: file names, sonames and real paths.
    let loaded: LoadedObjects
    /// The libraries to be newly mapped, by real path, deepest first.
    private(set) var libraries: [String] = []
    /// The names this closure looked up: what the plugin's `dlopen` may newly map.
    private var sought: Set<String> = []
    /// The sonames of the libraries it found: names that will be answered once they are mapped.
    private var sonames: Set<String> = []
    private let allowUntrusted: Bool

    /// Finds and checks every library the plugin at `path` (whose dynamic section is `dynamic`) would
    /// newly map. Throws ``PluginLoadError/libraryRefused(path:library:file:reason:)`` for the first
    /// one that is missing or refused.
    init(plugin path: String, dynamic: ELFCheck.DynamicSection, allowUntrusted: Bool) throws(PluginLoadError) {
        loaded = LoadedObjects.now()
        self.allowUntrusted = allowUntrusted
        try visit(path, dynamic: dynamic, plugin: path)
    }

    private mutating func visit(_ object: String, dynamic: ELFCheck.DynamicSection, plugin: String) throws(PluginLoadError) {
        let origin = String(object[..<(object.lastIndex(of: "/") ?? object.startIndex)])
        for name in dynamic.needed where !loaded.names.contains(name) && !sought.contains(name) && !sonames.contains(name) {
            sought.insert(name)
            guard let found = Self.find(name, origin: origin, dynamic: dynamic) else {
                throw .libraryRefused(path: plugin, library: name, file: nil, reason:
                    "not found where the dynamic linker looks for it (\(Self.describeSearch(origin: origin, dynamic: dynamic))): "
                    + "ship it beside the plugin")
            }
            let refuse = { (reason: String) in PluginLoadError.libraryRefused(path: plugin, library: name, file: found, reason: reason) }
            guard let real = Self.realPath(found) else { throw refuse("its real path cannot be read: \(String(cString: strerror(errno)))") }
            if loaded.objects[real] != nil || libraries.contains(real) { continue }
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
            if let soname = linked.soname { sonames.insert(soname) }
            try visit(real, dynamic: linked, plugin: plugin)
            libraries.append(real)
        }
    }

    /// The files the loader mapped since the closure was computed, under a name the closure looked
    /// for, that are neither `allowed` (the plugin) nor one of its checked libraries: a file that was
    /// not checked. (Objects mapped meanwhile under other names are another thread's loads.)
    func unchecked(allowing allowed: String) -> [String] {
        LoadedObjects.now().objects.filter { real, answersTo in
            loaded.objects[real] == nil && real != allowed && !libraries.contains(real) && !answersTo.isDisjoint(with: sought)
        }.keys.sorted()
    }

    /// Where the loader finds `name` for an object in `origin` with `dynamic`, or `nil`.
    private static func find(_ name: String, origin: String, dynamic: ELFCheck.DynamicSection) -> String? {
        if name.contains("/") { return FileStatus(name) == nil ? nil : name }
        return folders(origin: origin, dynamic: dynamic).lazy.map { "\($0)/\(name)" }.first { FileStatus($0) != nil }
    }

    /// The folders searched for a library linked by an object in `origin`, in glibc's order.
    private static func folders(origin: String, dynamic: ELFCheck.DynamicSection) -> [String] {
        let expand = { (folder: String) in
            folder.replacing("${ORIGIN}", with: origin).replacing("$ORIGIN", with: origin)
        }
        return (dynamic.runpath == nil ? dynamic.rpath.map(expand) : []) + libraryPath
            + (dynamic.runpath ?? []).map(expand) + systemFolders
    }

    private static func describeSearch(origin: String, dynamic: ELFCheck.DynamicSection) -> String {
        let own = (dynamic.runpath ?? dynamic.rpath).map { "'\($0)'" }
        return (own.isEmpty ? "no run path" : "run path \(own.joined(separator: ", "))")
            + (libraryPath.isEmpty ? "" : ", LD_LIBRARY_PATH") + ", the system's folders"
    }

    /// `LD_LIBRARY_PATH`, read once: the loader read it when the process started.
    private static let libraryPath: [String] = {
        guard let value = getenv("LD_LIBRARY_PATH") else { return [] }
        return String(cString: value).split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
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

/// The objects the dynamic loader has mapped, as one look at its list saw them.
///
/// Taken twice per plugin (before and after its `dlopen`), so it is kept for the process and brought
/// up to date by reading only the objects added since (the loader appends to its list, and says how
/// many objects were ever added and removed): a load of many plugins does not read the whole,
/// growing list again and again.
struct LoadedObjects: Sendable {
    /// Each object's real path, and the names a library is linked by that it answers to: its file
    /// name and its soname.
    private(set) var objects: [String: Set<String>] = [:]
    /// Every name some object answers to.
    private(set) var names: Set<String> = []
    /// The names of the Swift runtime's libraries: those in the folder of `libswiftCore.so`, which
    /// report no library version.
    private(set) var runtimeLibraries: Set<String> = []
    private var runtimeFolder: Substring?
    /// The loader's list as read: its length and its counts of objects added and removed.
    private var count = 0, adds: UInt64 = 0, subs: UInt64 = 0

    private static let latest = Lock(LoadedObjects())

    /// The loader's list now.
    static func now() -> LoadedObjects {
        latest.withLock { latest in
            latest.update()
            return latest
        }
    }

    private mutating func update() {
        var paths = [UnsafePointer<CChar>?](repeating: nil, count: 64)
        var sonames = [UnsafePointer<CChar>?](repeating: nil, count: 64)
        var added: UInt64 = 0, removed: UInt64 = 0
        // Objects removed (another library's dlclose) shift the list: read it again from the start.
        _ = dynamic_linker_loaded(&paths, &sonames, 0, 0, &added, &removed)
        if removed != subs || added == 0 { self = LoadedObjects() }
        guard added != adds || added == 0 else { return }
        while true {
            let total = dynamic_linker_loaded(&paths, &sonames, paths.count, count, &added, &removed)
            for index in 0..<max(0, min(total - count, paths.count)) { record(paths[index], sonames[index]) }
            count = min(total, count + paths.count)
            if count >= total { break }
        }
        (adds, subs) = (added, removed)
    }

    private mutating func record(_ rawPath: UnsafePointer<CChar>?, _ soname: UnsafePointer<CChar>?) {
        guard let rawPath, rawPath.pointee != 0 else { return }
        let path = String(cString: rawPath)
        var answersTo: Set<String> = [String(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...])]
        if let soname { answersTo.insert(String(cString: soname)) }
        let real = LibraryClosure.realPath(path) ?? path
        let folder = real[..<(real.lastIndex(of: "/") ?? real.startIndex)]
        objects[real, default: []].formUnion(answersTo)
        names.formUnion(answersTo)
        if runtimeFolder == nil, answersTo.contains("libswiftCore.so") {
            runtimeFolder = folder
            // Objects of that folder seen before it was known.
            for (other, otherNames) in objects where other.hasPrefix(folder + "/") { runtimeLibraries.formUnion(otherNames) }
        } else if folder == runtimeFolder {
            runtimeLibraries.formUnion(answersTo)
        }
    }
}
