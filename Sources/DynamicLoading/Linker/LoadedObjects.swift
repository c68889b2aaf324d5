import CDynamicLinker

/// The objects the dynamic loader has mapped, read from its list.
///
/// Asked twice per plugin (before and after its `dlopen`), so the list is kept for the process and
/// brought up to date by reading only the objects added since (the loader appends to its list, and
/// says how many objects were ever added and removed), and nothing of it is copied out but what a
/// question needs: a load of many plugins does not read or copy the whole, growing list again and
/// again.
package enum LoadedObjects {
    /// The objects in the loader's order: each one's real path, and the names a library is linked by
    /// that it answers to (its file name and its soname).
    private struct List {
        var entries: [(real: String, names: Set<String>)] = []
        var realPaths: Set<String> = []
        var sonames: Set<String> = []
        var fileNames: Set<String> = []
        /// The `DT_NEEDED` names of the loaded objects, the program's included, but for `unread`'s.
        var needed: Set<String> = []
        /// Loaded objects whose `DT_NEEDED` names are not in `needed` yet: read from their files only
        /// when a question needs them (``answer(_:)``), most never. A fresh process (a plugin's own)
        /// maps some twenty libraries before its first load; reading each one's dynamic section at
        /// once cost a tenth of its start-up's work.
        var unread: [String] = []
        /// The names of the Swift runtime's libraries: those in the folder of `libswiftCore.so`.
        var runtimeLibraries: Set<String> = []
        var runtimeFolder: Substring?
        /// The loader's list as read: its length and its counts of objects added and removed.
        var count = 0, adds: UInt64 = 0, subs: UInt64 = 0
        /// Each path's real path, kept when the list is read again from the start (a loaded object
        /// stays where it was mapped from).
        var realPathOf: [String: String] = [:]
        /// The `DT_NEEDED` names of files about to be loaded, read by the checks before `dlopen`:
        /// taken from here when they appear in the list, instead of reading the file again.
        var neededOf: [String: [String]] = [:]
    }

    private static let list = Lock(List())
    /// Libraries this process opened by path for a name a plugin links (``noteOpened(_:at:)``).
    private static let openedByPath = Lock<[String: String]>([:])

    /// How many objects are loaded now (the list is read again first).
    package static func count() -> Int { read(updating: true) { $0.entries.count } }
    /// The objects loaded after the first `count` (the list is read again first).
    package static func added(since count: Int) -> [(real: String, names: Set<String>)] {
        read(updating: true) { Array($0.entries.dropFirst(count)) }
    }
    /// Whether an object loaded at the last ``count()`` or ``added(since:)`` answers to the library
    /// name `name`: its soname, or its file name if some loaded object links it by that name (the
    /// loader matches the names an object was loaded under; a plugin opened by its path answers to
    /// no bare name).
    package static func answer(_ name: String) -> Bool {
        list.withLock { list in
            guard !list.sonames.contains(name) else { return true }
            guard list.fileNames.contains(name) else { return false }
            // The names known first; then the objects not read yet, one by one, until one links it.
            while !list.needed.contains(name), let real = list.unread.popLast() {
                if let linked = try? ELFCheck.validate(real) { list.needed.formUnion(linked.needed) }
            }
            return list.needed.contains(name)
        }
    }
    /// Notes what the file at the real path `real`, about to be loaded, links: its dynamic section
    /// was read already.
    package static func note(needed: [String], of real: String) {
        list.withLock { $0.neededOf[real] = needed }
    }

    /// Notes that the library `name` (`libName.so`) was opened by its path `real`, not as a plugin's
    /// dependency: with no soname, it answers to that path only, and the loader would map another file
    /// under that name beside it, a second copy of one module (``opened(as:)``).
    package static func noteOpened(_ name: String, at real: String) {
        openedByPath.withLock { $0[name] = $0[name] ?? real }
    }

    /// The real path of the library opened by its path for the name `name`, if one was (``noteOpened(_:at:)``).
    package static func opened(as name: String) -> String? { openedByPath.withLock { $0[name] } }

    /// Whether the file at the real path `real` was loaded at the last ``count()`` or ``added(since:)``.
    package static func contain(_ real: String) -> Bool { read { $0.realPaths.contains(real) } }
    /// The names of the Swift runtime's libraries (beside `libswiftCore.so`) loaded at the last
    /// ``count()`` or ``added(since:)``, which report no library version.
    package static func runtimeLibraries() -> Set<String> { read { $0.runtimeLibraries } }

    /// `body` of the list, brought up to date first if `updating`.
    private static func read<T>(updating: Bool = false, _ body: (List) -> T) -> T {
        list.withLock { list in
            if updating { update(&list) }
            return body(list)
        }
    }

    private static func update(_ list: inout List) {
        // C strings of the loader's list (names and sonames of loaded objects), copied into Strings
        // (`record`) before the lock is let go. They live while their object stays loaded: a
        // `dlclose` by another thread during the walk is the gap SECURITY.md names.
        var paths = [UnsafePointer<CChar>?](repeating: nil, count: 64)
        var sonames = [UnsafePointer<CChar>?](repeating: nil, count: 64)
        var added: UInt64 = 0, removed: UInt64 = 0
        // Objects removed (another library's dlclose) shift the list: read it again from the start.
        // (Capacity 0: the walk stops at the first object, which carries the counts.)
        _ = dynamic_linker_loaded(&paths, &sonames, 0, 0, &added, &removed)
        if removed != list.subs || added == 0 { list = List(realPathOf: list.realPathOf, neededOf: list.neededOf) }
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
            if list.entries.isEmpty, list.needed.isEmpty, let program = ELFCheck.hostExecutable {
                list.needed.formUnion(program.dynamic.needed)
            }
            return
        }
        let path = String(cString: rawPath)
        let fileName = String(path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...])
        var answersTo: Set<String> = [fileName]
        if let soname { answersTo.insert(String(cString: soname)) }
        let real = list.realPathOf[path] ?? Paths.realPath(path) ?? path
        list.realPathOf[path] = real
        let folder = real[..<(real.lastIndex(of: "/") ?? real.startIndex)]
        list.entries.append((real, answersTo))
        list.realPaths.insert(real)
        list.fileNames.insert(fileName)
        if let soname { list.sonames.insert(String(cString: soname)) }
        // The names it links, which the loader has mapped by them: as the checks read them, or read
        // from its file when a question needs them (the libraries loaded before the first plugin).
        if let known = list.neededOf.removeValue(forKey: real) {
            list.needed.formUnion(known)
        } else if real.hasPrefix("/") {
            // Not a name without a folder (the kernel's vdso, `linux-vdso.so.1`): no file of this
            // process's working folder is read for it.
            list.unread.append(real)
        }
        if list.runtimeFolder == nil, answersTo.contains("libswiftCore.so") {
            list.runtimeFolder = folder
            // Objects of that folder seen before it was known.
            for (other, names) in list.entries where other.hasPrefix(folder + "/") { list.runtimeLibraries.formUnion(names) }
        } else if folder == list.runtimeFolder {
            list.runtimeLibraries.formUnion(answersTo)
        }
    }
}
