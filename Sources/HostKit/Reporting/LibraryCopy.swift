import PluginAPI

/// One file of a versioned library (PluginAPI, or a contract library such as SampleContracts) and
/// the version it reports: a copy the process loaded for plugins, or one a load found and left unused.
public struct LibraryCopy: Sendable, Equatable, CustomStringConvertible {
    /// The version the copy reports; its name is the library's.
    public let version: LibraryVersion
    /// The file, by its real path.
    public let file: String

    /// The copy of `version.name` in `file`.
    init(version: LibraryVersion, file: String) {
        self.version = version
        self.file = file
    }

    /// The C symbol by which a loaded copy of the library `name` returns its encoded version: what
    /// PluginAPI exports as `pluginAPILoadedVersion()`, and each contract library as its own. A file
    /// named `lib<name>.so` that defines it says it is that library.
    static func versionSymbol(of name: String) -> String { "swift_library_version_" + name }

    /// `SampleContracts 1.1.0 (/path/libSampleContracts.so)`, the path escaped (``TerminalText/escaped(_:)``).
    public var description: String { TerminalText.escaped("\(version.name) \(version) (\(file))") }
}
