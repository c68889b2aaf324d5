import PluginAPI

/// Why a plugin cannot use one of the libraries the process loaded for it.
public enum LibraryMismatch: Equatable, Sendable, CustomStringConvertible {
    /// The plugin was built against `plugin`; the process has `host`, of another major version or
    /// an older minor one.
    case version(library: String, plugin: String, host: String)
    /// The plugin was built against version `plugin` of a library that no shared library the process
    /// loaded for it reports a version of.
    case unknown(library: String, plugin: String)
    /// The plugin links a library that reports its version (`host` here) but records none for it.
    case unrecorded(library: String, host: String)
    /// The plugin defines the library's version function itself: it carries its own copy of the
    /// library, whose types are not the host's.
    case ownCopy(library: String)

    public var description: String {
        switch self {
        case let .version(library, plugin, host):
            "built against \(library) \(plugin), this host has \(library) \(host)"
                + (Self.major(plugin) == Self.major(host) ? " (a newer minor version)" : " (another major version)")
        case let .unknown(library, plugin):
            "built against \(library) \(plugin), but no shared \(library) loaded here says its version"

        case let .unrecorded(library, host):
            "links \(library) (\(host) here) without recording the version it was built against;"
                + " list the LibraryVersion of \(library) in the plugin's contractLibraries"
        case let .ownCopy(library):
            "carries its own copy of \(library) (it defines \(LibraryVersion.symbol(of: library)));"
                + " link \(library) as a shared library (a `.dynamic` product of its own package)"
        }
    }

    private static func major(_ version: String) -> Substring { version.prefix { $0 != "." } }
}

/// Compares the library versions a plugin recorded with the copies the process loaded for it: the
/// same major version, and a minor version no newer than the loaded copy's.
enum LibraryCheck {
    /// Whether a plugin built against `plugin` may use the loaded `host` copy of the same library.
    static func accepts(plugin: LibraryVersion, host: LibraryVersion) -> Bool {
        plugin.major == host.major && plugin.minor <= host.minor
    }

    /// What keeps the plugin in `library`, which recorded `recorded`, from using the loaded copies.
    /// Its file says which shared libraries it links (`DT_NEEDED`) and which version functions it
    /// defines itself: `dlsym` on its handle would find those first, so they are refused instead.
    static func mismatches(recorded: [LibraryVersion], in library: DynamicLibrary) -> [LibraryMismatch] {
        let own = ELFCheck.definedSymbols(library.path, prefix: LibraryVersion.symbol(of: "")) ?? []
        let needed = ELFCheck.neededLibraries(library.path) ?? []
        var mismatches = own.sorted().map { LibraryMismatch.ownCopy(library: String($0.dropFirst(LibraryVersion.symbol(of: "").count))) }
        guard mismatches.isEmpty else { return mismatches }
        for version in recorded {
            guard let host = loadedVersion(of: version.name, in: library) else {
                mismatches.append(.unknown(library: version.name, plugin: "\(version)"))
                continue
            }
            if !accepts(plugin: version, host: host) {
                mismatches.append(.version(library: version.name, plugin: "\(version)", host: "\(host)"))
            }
        }
        let names = Set(recorded.map(\.name))
        for file in needed {
            guard let name = libraryName(file), !names.contains(name),
                  let host = loadedVersion(of: name, in: library) else { continue }
            mismatches.append(.unrecorded(library: name, host: "\(host)"))
        }
        return mismatches
    }

    /// The version that the copy of library `name` loaded for `library` reports, if one does.
    private static func loadedVersion(of name: String, in library: DynamicLibrary) -> LibraryVersion? {
        typealias VersionFunction = @convention(c) () -> UInt64
        guard let symbol = library.symbol(LibraryVersion.symbol(of: name)) else { return nil }
        let encoded = unsafeBitCast(symbol, to: VersionFunction.self)()
        guard encoded >> 48 == 0 else { return nil }
        return LibraryVersion(name, UInt16(truncatingIfNeeded: encoded >> 32), UInt16(truncatingIfNeeded: encoded >> 16),
                              UInt16(truncatingIfNeeded: encoded))
    }

    /// `SampleContracts` for `libSampleContracts.so`: the library a SwiftPM product of that name builds.
    private static func libraryName(_ file: String) -> String? {
        guard file.hasPrefix("lib"), file.hasSuffix(".so") else { return nil }
        let name = file.dropFirst(3).dropLast(3)
        guard !name.isEmpty, name.utf8.allSatisfy(PluginHeader.isIdentifierByte) else { return nil }
        return String(name)
    }
}
