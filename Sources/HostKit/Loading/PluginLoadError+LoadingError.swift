internal import DynamicLoading

/// The dynamic linker's errors told as plugin load errors: beside the loader, for a failed `dlopen`
/// is explained with what loading knows (``SwiftDemangle``, ``LibraryCopies``).
extension PluginLoadError {
    /// What the dynamic linker refused or answered; a failed `dlopen` also says, for an undefined
    /// Swift symbol, which library it belongs to and the copy of it the plugin was bound to.
    init(_ error: LoadingError) {
        switch error {
        case let .notFound(path): self = .notFound(path: path)
        case let .notASharedLibrary(path, reason): self = .notASharedLibrary(path: path, reason: reason)
        case let .libraryRefused(path, library, file, reason):
            self = .libraryRefused(path: path, library: library, file: file, reason: reason)
        case let .missingEntrySymbol(path, symbol): self = .missingEntrySymbol(path: path, symbol: symbol)
        case let .entryNotAFunction(path, symbol, reason): self = .entryNotAFunction(path: path, symbol: symbol, reason: reason)
        case let .openFailed(path, image, message, brought):
            // The copy a plugin was bound to: loaded before it (its version is asked), or brought by
            // it (checked, mapped and unmapped again by the failed `dlopen`: nothing of it ran, and
            // nothing runs to read its version).
            let copy = { (library: String) -> SwiftDemangle.Copy? in
                let file = "lib\(library).so"
                if let brought = brought.first(where: { $0.hasSuffix("/" + file) }) {
                    return SwiftDemangle.Copy(file: ShadowFolder.original(of: brought), version: nil)
                }
                return LibraryCopies.loaded(file).map { SwiftDemangle.Copy(file: $0.file, version: $0.version) }
            }
            let reason = SwiftDemangle.explain(message, opened: image, copy: copy)
            self = .notASharedLibrary(path: path, reason: ShadowFolder.originals(in: reason))
        }
    }
}
