internal import DynamicLoading

/// A file that may be a plugin: the path as the user gave it (made absolute), the real path behind
/// every symlink, and the copy of the file that the checks read and `dlopen` maps (``ShadowFolder``).
struct PluginCandidate: Sendable, Hashable, Codable {
    /// The path as given, made absolute.
    let path: String
    /// The canonical path: absolute, with no symlink, `.` or `..`. What reports name.
    let realPath: String
    /// The file the checks read and `dlopen` gets: the copy in ``shadowRoot`` of the bytes at
    /// ``realPath`` as discovery read them, or ``realPath`` itself for a file the process has
    /// loaded already (a library of the host's, never mapped again).
    var image: String
    /// The ``ShadowFolder`` of the copy: the libraries the plugin brings are copied beside it.
    var shadowRoot: String?
    /// Whether the libraries the plugin links may be files others could change, as the discovery
    /// that found it allows for the plugin itself.
    var allowUntrusted = false
    /// What the ELF check read of the file's dynamic section when discovery found it.
    var dynamic: ELFCheck.DynamicSection?
    /// The file and contents discovery checked: a reload tells a changed file from an unchanged one by it.
    var identity: FileIdentity?

    /// The shadow folder the copy lies in, if it is one.
    var shadow: ShadowFolder? { shadowRoot.map(ShadowFolder.existing) }
    /// What its dynamic symbol table says of the entry symbol: a file that does not define it as a
    /// function is never opened (a contract library beside the plugins runs nothing by being found
    /// among them).
    var entry = EntrySymbol.missing
    /// For a file without the entry that defines its own library's version function
    /// (`swift_library_version_NAME` in `libNAME.so`): NAME. Such a file says it is a versioned
    /// library (a contract library); one that no plugin of the load links is left alone, not refused.
    var versionedLibrary: String?

    /// The versioned library `symbols` (a file's, `entry` what they say of the entry symbol) say the
    /// file at `path` is, by its file name: nil for a plugin, or a file that does not define the
    /// version function its name calls for. Read from the symbol table only: nothing of the file runs.
    static func versionedLibrary(at path: String, entry: EntrySymbol, symbols: ELFCheck.DynamicSymbols?) -> String? {
        guard entry == .missing, let symbols, let file = path.split(separator: "/").last,
              file.hasPrefix("lib"), file.hasSuffix(".so"), file.count > 6 else { return nil }
        let name = String(file.dropFirst(3).dropLast(3))
        return symbols.functions.contains(LibraryCopy.versionSymbol(of: name)) ? name : nil
    }

    /// The file names it is known by (of the path given and of the real path): what a plugin that
    /// links it as a library names in its `DT_NEEDED`.
    var fileNames: [String] {
        [path, realPath].map { String($0.split(separator: "/").last ?? "") }
    }

    /// The same file, found at `path` (given so, or moved or linked there since it was read).
    func found(at path: String, allowUntrusted: Bool) -> PluginCandidate {
        PluginCandidate(path: path, realPath: realPath, image: image, shadowRoot: shadowRoot,
                                        allowUntrusted: allowUntrusted, dynamic: dynamic, identity: identity, entry: entry,
                        versionedLibrary: versionedLibrary)
    }

    /// The same file, its copy (made or to be made) in `shadow`: a file that is copied, not one the
    /// process has loaded.
    func copied(into shadow: ShadowFolder) -> PluginCandidate {
        guard shadowRoot != nil else { return self }
        var candidate = self
        candidate.shadowRoot = shadow.root
        candidate.image = shadow.image(of: realPath)
        return candidate
    }
}
