internal import DynamicLoading

/// Which copy of each contract library a load uses, chosen before any plugin is opened.
///
/// Plugins built in packages of their own each find a copy of a contract library beside them (in
/// their build folder, by `$ORIGIN`), and the loader binds every later plugin to the copy mapped
/// first: left to the loader, the order of the sources would choose. So, before the first `dlopen`,
/// the copies the load's plugins would find are compared, and the plugins that bring the copy chosen
/// are opened first, so that the loader maps it, and every other plugin is bound to it. A copy not
/// chosen is not opened (a file without an entry symbol is never opened as a plugin), unless every
/// plugin that brings the chosen one is refused before the loader maps it: then the next plugin maps
/// its own. The report says which copy each plugin is bound to, and of each copy found beside the
/// plugins that is not it, the copy used instead (``LoadReport/Entry/usedInstead``).
///
/// Nothing of a copy runs to choose it: the copies and the plugins are read as files (their dynamic
/// symbol tables, ``ELFCheck/dynamicSymbols(_:)``). A plugin can use a copy if the copy defines every
/// symbol of the library the plugin needs. The copy chosen is the one the most plugins can use; of
/// those, the one that defines the most (a release that only adds defines more than the one before
/// it: the newest), then the one the most plugins came with, then the first by path; a copy defining
/// the very same symbols as the chosen one (another build of the same release) does as well. Only a
/// library that says its version (a contract library, ``LibraryCopy/versionSymbol(of:)``) is chosen
/// among; other libraries are left to the loader. Only copies checked as a linked library is checked (a
/// regular file, on a trusted path unless untrusted files are allowed, whose ELF headers fit) are
/// compared. The version of the copy chosen is read once it is loaded (``loaded(_:)``).
enum LibraryCopies {
    /// `candidates` (in discovery order) in the order to open them: for each contract library that
    /// several copies of are found, a plugin that brings the copy chosen before the others.
    static func openingOrder(for candidates: [PluginCandidate]) -> [PluginCandidate] {
        _ = LoadedObjects.count()  // reads the loaded objects anew: what is loaded needs no choice
        // For each plugin, the copy it would find of each library not loaded yet that a contract
        // library may be (`libName.so`), by that file name. A file that is no plugin is never opened
        // and maps nothing.
        let finds = candidates.map { candidate -> [String: String] in
            guard candidate.entry == .function, let dynamic = candidate.dynamic else { return [:] }
            var copies: [String: String] = [:]
            for needed in dynamic.needed where LibraryCheck.libraryName(needed) != nil && !LoadedObjects.answer(needed) {
                copies[needed] = checkedCopy(needed, origin: Paths.folder(of: candidate.image), dynamic: dynamic,
                                             allowUntrusted: candidate.allowUntrusted, shadow: candidate.shadow)
            }
            return copies
        }
        // For each library with copies to choose from, the copies that will do: the chosen one and
        // those defining the very same symbols (two builds of one release).
        var fitting: [String: Set<String>] = [:]
        // Each plugin's needed symbols, read once however many libraries it has copies of (a plugin
        // whose table cannot be read counts as needing none: the same for every copy).
        var neededBy: [String: Set<String>] = [:]
        for needed in Set(finds.flatMap(\.keys)).sorted() {
            guard let name = LibraryCheck.libraryName(needed) else { continue }
            let users = finds.indices.filter { finds[$0][needed] != nil }
            let copies = Set(users.compactMap { finds[$0][needed] }).sorted()
            guard copies.count > 1 else { continue }
            // Only a contract library (one that says its version) is chosen among; other libraries
            // are left to the loader, as they always were.
            let defined = copies.compactMap { copy in ELFCheck.dynamicSymbols(copy).map { (copy: copy, symbols: $0.defined) } }
            guard defined.contains(where: { $0.symbols.contains(LibraryCopy.versionSymbol(of: name)) }) else { continue }
            let bringers = Dictionary(grouping: users) { finds[$0][needed] ?? "" }.mapValues(\.count)
            let plugins = users.map { candidates[$0].image }
            for plugin in plugins where neededBy[plugin] == nil { neededBy[plugin] = ELFCheck.dynamicSymbols(plugin)?.needed ?? [] }
            guard let best = best(of: defined, needs: plugins.map { neededBy[$0] ?? [] }, bringers: bringers) else { continue }
            fitting[needed] = Set(defined.filter { $0.symbols == best.symbols }.map(\.copy))
        }
        guard !fitting.isEmpty else { return candidates }
        // The loader binds a library name to the copy mapped first under it: each next plugin is the
        // first (in discovery order) whose every library is loaded already or found in a fitting copy.
        var remaining = Array(candidates.indices), mapped: Set<String> = [], order: [PluginCandidate] = []
        while !remaining.isEmpty {
            let next = remaining.firstIndex { index in
                finds[index].allSatisfy { needed, copy in mapped.contains(needed) || fitting[needed]?.contains(copy) ?? true }
            } ?? 0
            let index = remaining.remove(at: next)
            order.append(candidates[index])
            mapped.formUnion(finds[index].keys)
        }
        return order
    }

    /// Of `copies` (real paths, sorted, each with the symbols it defines), the one the most plugins
    /// (`needs`: the symbols each needs) can use, then the one that defines the most, then the one
    /// the most plugins came with (`bringers`), then the first.
    private static func best(of copies: [(copy: String, symbols: Set<String>)], needs plugins: [Set<String>],
                             bringers: [String: Int]) -> (copy: String, symbols: Set<String>)? {
        let library = copies.reduce(into: Set<String>()) { $0.formUnion($1.symbols) }
        // What each plugin needs of the library: its needed symbols that some copy defines.
        let needs = plugins.map { $0.intersection(library) }
        let ranked = copies.map { copy in
            (copy: copy, usable: needs.filter { $0.isSubset(of: copy.symbols) }.count, size: copy.symbols.count,
             brought: bringers[copy.copy] ?? 0)
        }
        return ranked.max { a, b in
            (a.usable, a.size, a.brought) != (b.usable, b.size, b.brought)
                ? (a.usable, a.size, a.brought) < (b.usable, b.size, b.brought) : a.copy.copy > b.copy.copy
        }?.copy
    }

    /// The real path of the file the loader would map for `needed`, for an object in `origin` (a
    /// copy, for a library beside the copies), if it passes the checks a library the plugin brings
    /// must pass (``LibraryClosure/check(_:real:allowUntrusted:shadow:)``).
    private static func checkedCopy(_ needed: String, origin: String, dynamic: ELFCheck.DynamicSection,
                                    allowUntrusted: Bool, shadow: ShadowFolder?) -> String? {
        guard let found = try? LibraryClosure.find(needed, origin: origin, dynamic: dynamic, shadow: shadow),
              let real = Paths.realPath(found.original),
              (try? LibraryClosure.check(found, real: real, allowUntrusted: allowUntrusted, shadow: shadow)) != nil
        else { return nil }
        return found.isCopy ? found.loaderPath : real
    }

    /// The copy loaded in this process that a plugin linking `needed` (`libName.so`) is bound to, and
    /// the version it reports, if `needed` names a versioned library and such a copy is loaded.
    static func loaded(_ needed: String) -> LibraryCopy? {
        guard let name = LibraryCheck.libraryName(needed), let library = DynamicLibrary.bound(to: needed) else { return nil }
        return LibraryCheck.copy(of: name, in: library)
    }
}
