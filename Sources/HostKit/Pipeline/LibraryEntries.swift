internal import DynamicLoading

/// What the report says of a file that is a library, not a plugin.
enum LibraryEntries {
    /// The name a library the host itself links is reported linked by.
    static let hostName = "the host"

    /// Turns the "not a plugin" of each file that a plugin of `opened` links into a library entry: a
    /// contract library laid beside the plugins that use it is where it belongs, not a problem. A
    /// file of that name that is not the copy those plugins are bound to says which copy is. So does
    /// a plugin among `candidates` refused before it opened, by its file's `DT_NEEDED`: its refusal is
    /// the problem, not the library beside it.
    static func mark(of opened: [LoadedPlugin], among candidates: [PluginCandidate],
                     in outcome: inout [String: LoadReport.Entry]) {
        var linkers: [String: [String]] = [:]
        for plugin in opened {
            for file in plugin.linkedLibraries { linkers[file, default: []].append(plugin.metadata.name) }
        }
        let openedPaths = Set(opened.map(\.path))
        for candidate in candidates where !openedPaths.contains(candidate.realPath) {
            guard let entry = outcome[candidate.realPath], let error = entry.error else { continue }
            if case .missingEntrySymbol = error { continue }
            let name = entry.metadata?.name ?? candidate.fileNames.first ?? candidate.path
            for file in candidate.dynamic?.needed ?? [] { linkers[file, default: []].append(name) }
        }
        // A library no plugin links that the host itself was linked with (`libPluginActors.so` beside
        // `host` in a build folder): the very file this process mapped, not a plugin left unopened.
        // (Plugins and their libraries are mapped from shadow copies: their own paths are not.)
        let unopened = candidates.filter { candidate in
            guard case .missingEntrySymbol? = outcome[candidate.realPath]?.error else { return false }
            return !candidate.fileNames.contains { linkers[$0] != nil }
        }
        let mapped = MappedFiles.files(at: Set(unopened.map(\.realPath)))
        for candidate in unopened {
            guard let identity = candidate.identity, let file = mapped[candidate.realPath],
                  file.device == identity.device, file.inode == identity.inode else { continue }
            linkers[candidate.fileNames.first ?? candidate.realPath, default: []].append(hostName)
        }
        // A versioned library no plugin links, nor the host (a test fixture's contracts in a build
        // folder, a contract library whose plugins were taken away): its symbols say what it is, and
        // nothing of it is opened. Not a problem of the load; an unknown library without the entry still is.
        for candidate in unopened {
            guard let name = candidate.versionedLibrary,
                  !candidate.fileNames.contains(where: { linkers[$0] != nil }) else { continue }
            var entry = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: nil)
            entry.unlinkedLibrary = name
            outcome[candidate.realPath] = entry
        }
        guard !linkers.isEmpty else { return }
        // The copies the plugins are bound to (the loader binds every plugin to one copy of a name),
        // by file and by the name plugins link them by.
        let copies = opened.flatMap(\.copies)
        let byFile = Dictionary(copies.map { ($0.file, $0) }) { first, _ in first }
        let byName = Dictionary(copies.map { ("lib\($0.version.name).so", $0) }) { first, _ in first }
        for candidate in candidates {
            guard case .missingEntrySymbol? = outcome[candidate.realPath]?.error,
                  let (name, users) = candidate.fileNames.lazy.compactMap({ name in linkers[name].map { (name, $0) } }).first
            else { continue }
            if let bound = byName[name], bound.file != candidate.realPath {
                outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: nil, usedInstead: bound)
            } else {
                outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: nil, linkedBy: users,
                                                               library: byFile[candidate.realPath])
            }
        }
    }
}
