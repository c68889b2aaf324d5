import Foundation

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
        LoadedObjects.note(needed: dynamic.needed, of: path)
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
        let real: String
        do {
            real = String(decoding: try Posix.realpath(found), as: UTF8.self)
        } catch {
            throw refuse("its real path cannot be read: \(error.reason)")
        }
        if libraries.contains(real) || LoadedObjects.contain(real) { return nil }
        let linked: ELFCheck.DynamicSection
        do {
            linked = try Self.check(found, real: real, allowUntrusted: allowUntrusted)
        } catch {
            throw refuse(error.reason)
        }
        if let soname = linked.soname { answered.insert(soname) }
        libraries.append(real)
        LoadedObjects.note(needed: linked.needed, of: real)
        // `$ORIGIN` of a library is the folder it was found in (a symlink's, not its target's).
        return (Self.folder(of: found), linked)
    }

    /// Why a library found for a plugin may not be mapped.
    struct Refusal: Error {
        let reason: String
    }

    /// Checks the library found at `found` (its real path `real`) as the plugin itself is checked: a
    /// regular file (a pipe would hang the loader), a trusted path unless `allowUntrusted`, ELF
    /// headers that fit the file. Returns its dynamic section.
    static func check(_ found: String, real: String, allowUntrusted: Bool) throws(Refusal) -> ELFCheck.DynamicSection {
        guard let status = FileStatus(real), status.isRegularFile else {
            throw Refusal(reason: "not a regular file (\(FileStatus(real)?.kind ?? "gone"))")
        }
        if !allowUntrusted, let reason = PathTrust.problem(found) { throw Refusal(reason: reason) }
        do {
            return try ELFCheck.validate(real)
        } catch {
            guard case let .notASharedLibrary(_, reason) = error else { throw Refusal(reason: error.description) }
            throw Refusal(reason: reason)
        }
    }

    /// The folder of the file `path` (empty for a name without one).
    static func folder(of path: String) -> String {
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
    static func find(_ name: String, origin: String, dynamic: ELFCheck.DynamicSection) -> String? {
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
        guard let value = Posix.environment("LD_LIBRARY_PATH"), !value.isEmpty else { return [] }
        return value.split(separator: /[:;]/, omittingEmptySubsequences: false).map(String.init)
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
                    files += Posix.glob(String(line.dropFirst(8)).trimmingCharacters(in: .whitespaces)).reversed()
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

    /// The real path of `path`, or `nil` if it has none.
    static func realPath(_ path: String) -> String? {
        (try? Posix.realpath(path)).map { String(decoding: $0, as: UTF8.self) }
    }
}
