import CDynamicLinker
import PluginAPI

/// Which copy of each contract library a load uses, chosen before any plugin is opened.
///
/// Plugins built in packages of their own each find a copy of a contract library beside them (in
/// their build folder, by `$ORIGIN`), and the loader binds every later plugin to the copy mapped
/// first: left to the loader, the order of the sources would choose. So, before the first `dlopen`,
/// the copies the load's plugins would find are read, and when they differ the newest of the major
/// version the most plugins find is chosen; the plugins that bring that copy are opened first, so
/// that the loader maps it, and every other plugin is bound to it. A copy left unused is never
/// opened in this process.
///
/// A copy's version is asked of its version function (``LibraryCheck/versionSymbol(of:)``) in a
/// child process (`fork`), never in this one: a copy that is not chosen runs nothing here. Only copies
/// checked as a linked library is (a regular file, a trusted path unless untrusted files are allowed,
/// a file that names the version function) are asked.
enum LibraryCopies {
    /// What a load does with the contract libraries its candidates would find.
    struct Choice {
        /// The candidates in the order to open them: those that bring a chosen copy first.
        var order: [PluginCandidate]
        /// The copies chosen, by library name.
        var chosen: [String: LibraryCopy] = [:]
        /// The copies found and not chosen, by real path, each with the copy chosen instead: never opened.
        var unused: [String: (copy: LibraryCopy, instead: LibraryCopy)] = [:]
    }

    /// How long a child may take to say a copy's version.
    private static let timeoutMilliseconds: Int32 = 5_000

    /// The choice for `candidates` (in discovery order).
    static func choose(for candidates: [PluginCandidate]) -> Choice {
        _ = LoadedObjects.count()
        // For each library name, the copies the candidates would find, and which candidates find each.
        var found: [String: [String: [Int]]] = [:]
        for (index, candidate) in candidates.enumerated() {
            guard let dynamic = candidate.dynamic else { continue }
            for needed in dynamic.needed where !LoadedObjects.answer(needed) {
                guard let name = LibraryCheck.libraryName(needed),
                      let copy = checkedCopy(needed, origin: LibraryClosure.folder(of: candidate.realPath), dynamic: dynamic,
                                             allowUntrusted: candidate.allowUntrusted)
                else { continue }
                found[name, default: [:]][copy, default: []].append(index)
            }
        }
        var choice = Choice(order: candidates)
        var first: Set<Int> = []
        for (name, files) in found.sorted(by: { $0.key < $1.key }) where files.count > 1 {
            let copies = files.keys.sorted().compactMap { file in version(of: name, in: file).map { LibraryCopy(version: $0, file: file) } }
            guard let chosen = newest(copies, users: { files[$0.file]?.count ?? 0 }) else { continue }
            choice.chosen[name] = chosen
            for copy in copies where copy != chosen { choice.unused[copy.file] = (copy, chosen) }
            first.formUnion(files[chosen.file] ?? [])
        }
        choice.order = candidates.indices.filter(first.contains).map { candidates[$0] }
            + candidates.indices.filter { !first.contains($0) }.map { candidates[$0] }
        return choice
    }

    /// The newest of `copies` among those of the major version whose copies the most plugins
    /// (`users`) find; of two such majors, the newer.
    private static func newest(_ copies: [LibraryCopy], users: (LibraryCopy) -> Int) -> LibraryCopy? {
        let byMajor = Dictionary(grouping: copies) { $0.version.major }
        let major = byMajor.max { a, b in
            let (usersA, usersB) = (a.value.map(users).reduce(0, +), b.value.map(users).reduce(0, +))
            return usersA == usersB ? a.key < b.key : usersA < usersB
        }
        return major?.value.max { ($0.version.minor, $0.version.patch) < ($1.version.minor, $1.version.patch) }
    }

    /// The real path of the copy of `needed` that an object in `origin` would find, if it is a
    /// regular file on a trusted path (unless `allowUntrusted`) that names its version function.
    private static func checkedCopy(_ needed: String, origin: String, dynamic: ELFCheck.DynamicSection,
                                    allowUntrusted: Bool) -> String? {
        guard let name = LibraryCheck.libraryName(needed),
              let found = LibraryClosure.find(needed, origin: origin, dynamic: dynamic),
              let real = LibraryClosure.realPath(found), FileStatus(real)?.isRegularFile == true,
              allowUntrusted || PathTrust.problem(found) == nil,
              (try? ELFCheck.validate(real)) != nil,
              ELFCheck.namesDynamicSymbol(real, LibraryCheck.versionSymbol(of: name)) == true
        else { return nil }
        return real
    }

    /// The version the copy of `name` at the real path `file` reports, asked in a child process;
    /// `nil` if the child could not say (no such function of the file's own, a crash, a timeout).
    static func version(of name: String, in file: String) -> LibraryVersion? {
        var value: UInt64 = 0
        guard dynamic_linker_value_in_child(file, LibraryCheck.versionSymbol(of: name), timeoutMilliseconds, &value) == 0 else {
            return nil
        }
        return PluginHeader.decode(name, value)
    }

    /// The copy loaded in this process that answers to the library name `needed` (`libName.so`), and
    /// its version, if `needed` names a versioned library and one is loaded.
    static func loaded(_ needed: String) -> LibraryCopy? {
        guard let name = LibraryCheck.libraryName(needed), let file = LoadedObjects.file(answering: needed),
              let version = version(of: name, in: file) else { return nil }
        return LibraryCopy(version: version, file: file)
    }
}
