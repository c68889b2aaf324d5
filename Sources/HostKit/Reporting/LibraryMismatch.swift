import PluginAPI

/// Why a plugin cannot use one of the libraries the process loaded for it.
public enum LibraryMismatch: Equatable, Sendable, CustomStringConvertible {
    /// The plugin was built against `plugin`; the copy the process loaded for it, `file`, is `host`,
    /// of another major version or an older minor one.
    case version(library: String, plugin: String, host: String, file: String)
    /// The plugin was built against version `plugin` of a library that no shared library the process
    /// loaded for it reports a version of.
    case unknown(library: String, plugin: String)
    /// The plugin links a library that reports its version (`host` here) but records none for it.
    case unrecorded(library: String, host: String)
    /// The library's version function comes from `carrier`, not from `lib<library>.so`: that file (the
    /// plugin itself, or another library it links) carries its own copy of the library, whose types
    /// are not the process's.
    case ownCopy(library: String, carrier: String)
    /// The libraries the plugin links could not be read from its loaded image.
    case unreadableLinks

    /// The mismatch in words; the file names in it escaped (``TerminalText/escaped(_:)``).
    public var description: String { TerminalText.escaped(unescapedDescription) }

    private var unescapedDescription: String {
        switch self {
        case let .version(library, plugin, host, file):
            "built against \(library) \(plugin), but the copy of \(library) loaded for it is \(host) (\(file)): "
                + (Self.major(plugin) == Self.major(host) ? "a newer minor version, it needs \(library) \(plugin) or a newer \(Self.major(plugin)).x"
                    : "another major version, rebuild it against \(library) \(host)")
        case let .unknown(library, plugin):
            "built against \(library) \(plugin), but no shared \(library) loaded here says its version"

        case let .unrecorded(library, host):
            "links \(library) (\(host) here) without recording the version it was built against;"
                + " list the LibraryVersion of \(library) in the plugin's contractLibraries"
        case let .ownCopy(library, carrier):
            "\(carrier) carries its own copy of \(library) (it defines \(LibraryCopy.versionSymbol(of: library)));"
                + " link \(library) as a shared library, lib\(library).so (a `.dynamic` product of its own package)"
        case .unreadableLinks:
            "the libraries it links cannot be read from its loaded image"
        }
    }

    private static func major(_ version: String) -> Substring { version.prefix { $0 != "." } }
}

/// Compares the library versions a plugin recorded with the copies the process loaded for it: the
