/// A file that may be a plugin: the path as the user gave it (made absolute) and the real path
/// behind every symlink, which is what reaches `dlopen`.
struct PluginCandidate: Sendable, Hashable, Codable {
    /// The path as given, made absolute.
    let path: String
    /// The canonical path: absolute, with no symlink, `.` or `..`.
    let realPath: String
    /// Whether the libraries the plugin links may be files others could change, as the discovery
    /// that found it allows for the plugin itself.
    var allowUntrusted = false
    /// What the ELF check read of the file's dynamic section when discovery found it.
    var dynamic: ELFCheck.DynamicSection?
    /// The file and contents discovery checked: a reload tells a changed file from an unchanged one by it.
    var identity: FileIdentity?
    /// What its dynamic symbol table says of the entry symbol: a file that does not define it as a
    /// function is never opened (a contract library beside the plugins runs nothing by being found
    /// among them).
    var entry = EntrySymbol.missing

    /// The file names it is known by (of the path given and of the real path): what a plugin that
    /// links it as a library names in its `DT_NEEDED`.
    var fileNames: [String] {
        [path, realPath].map { String($0.split(separator: "/").last ?? "") }
    }
}
