/// Why the dynamic linker was not asked to map a file, or what it answered: each case names the file
/// as the caller reported it (`path`) and carries the facts, in words for a person where they are the
/// reason. HostKit tells its users each as the plugin load error of the same name.
package enum LoadingError: Error {
    /// Nothing to open at `path` (the image to open is not an absolute path).
    case notFound(path: String)
    /// The file cannot be mapped: its ELF headers, or the way the linker would search for what it links.
    case notASharedLibrary(path: String, reason: String)
    /// A library the file links is missing or refused: `file` is where the linker would find it
    /// (`nil` if nowhere), `reason` why.
    case libraryRefused(path: String, library: String, file: String?, reason: String)
    /// `dlopen` of `image` (the file opened for `path`) failed and said `message`; `brought` are the
    /// libraries it was to map newly with it (copies among them by the path of their copy).
    case openFailed(path: String, image: String, message: String, brought: [String])
    /// The file does not define the entry symbol `symbol` as a symbol of its own.
    case missingEntrySymbol(path: String, symbol: String)
    /// The file's `symbol` is not a function of its own: `reason` says what it is.
    case entryNotAFunction(path: String, symbol: String, reason: String)

    /// The error of a file whose ELF headers were refused.
    package init(_ refusal: ELFCheck.Refusal) {
        self = .notASharedLibrary(path: refusal.path, reason: refusal.reason)
    }
}
