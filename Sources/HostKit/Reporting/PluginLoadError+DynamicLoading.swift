internal import DynamicLoading

/// The errors of the floor (DynamicLoading), told as the plugin load errors of the same facts, so that
/// every text stays what it was. The linker's (``LoadingError``) are told in Loading, which explains
/// a failed `dlopen` with what it knows.
extension PluginLoadError {
    /// A file whose ELF headers were refused: no shared library for this host.
    init(_ refusal: ELFCheck.Refusal) {
        self = .notASharedLibrary(path: refusal.path, reason: refusal.reason)
    }

    /// No folder for a load's copies.
    init(_ unusable: ShadowFolder.Unusable) {
        self = .shadowFolderUnusable(path: unusable.path, reason: unusable.reason)
    }
}
