internal import DynamicLoading
import PluginAPI

/// Compares the library versions a plugin recorded with the copies the process loaded for it: the
/// same major version, and a minor version no newer than the loaded copy's.
enum LibraryCheck {
    /// Whether a plugin built against `plugin` may use the loaded `host` copy of the same library.
    static func accepts(plugin: LibraryVersion, host: LibraryVersion) -> Bool {
        plugin.major == host.major && plugin.minor <= host.minor
    }

    /// What keeps the plugin in `library`, which recorded `recorded`, from using the loaded copies.
    /// Each version is asked of the copy the plugin is bound to (`dlsym` on its handle), and only
    /// believed from a file named for the library: a definition in the plugin, or in another library
    /// it links, is a copy of the library of its own.
    /// `needed` is what the plugin links (`DT_NEEDED`), nil if it could not be read. Also returns
    /// the copies the plugin is bound to, of the libraries it recorded.
    static func check(recorded: [LibraryVersion], in library: DynamicLibrary,
                      needed: [String]?) -> (mismatches: [LibraryMismatch], copies: [LibraryCopy]) {
        var mismatches: [LibraryMismatch] = []
        var copies: [LibraryCopy] = []
        for version in recorded {
            switch loadedVersion(of: version.name, in: library) {
            case nil:
                mismatches.append(.unknown(library: version.name, plugin: "\(version)"))
            case let .ownCopy(carrier)?:
                mismatches.append(.ownCopy(library: version.name, carrier: carrier))
            case let .version(copy)?:
                copies.append(copy)
                if !accepts(plugin: version, host: copy.version) {
                    mismatches.append(.version(library: version.name, plugin: "\(version)", host: "\(copy.version)", file: copy.file))
                }
            }
        }
        guard let needed else { return (mismatches + [.unreadableLinks], copies) }
        let names = Set(recorded.map(\.name))
        for file in needed {
            guard let name = libraryName(file), !names.contains(name),
                  case let .version(copy)? = loadedVersion(of: name, in: library) else { continue }
            mismatches.append(.unrecorded(library: name, host: "\(copy.version)"))
        }
        return (mismatches, copies)
    }

    /// What the copy of library `name` that `library` is bound to says of itself.
    private enum Loaded {
        /// The copy in `lib<name>.so`, and the version it reports.
        case version(LibraryCopy)
        /// The version function lives in `carrier`, a file not named for the library.
        case ownCopy(carrier: String)
    }

    /// The copy of library `name` that `library` is bound to (or is), and the version it reports, if
    /// it is in a file named for the library.
    static func copy(of name: String, in library: DynamicLibrary) -> LibraryCopy? {
        guard case let .version(copy)? = loadedVersion(of: name, in: library) else { return nil }
        return copy
    }

    private static func loadedVersion(of name: String, in library: DynamicLibrary) -> Loaded? {
        guard let definition = library.definition(of: LibraryCopy.versionSymbol(of: name)) else { return nil }
        let owner = definition.owner
        let file = owner.split(separator: "/").last.map(String.init) ?? owner
        guard file == "lib\(name).so" else { return .ownCopy(carrier: file) }
        let path = ShadowFolder.original(of: Paths.realPath(owner) ?? owner)
        // Called only in the file named for the library, and only if it is a function there: data of
        // that name is a copy that says no version.
        return library.callVersionFunction(definition).flatMap { PluginHeader.decode(name, $0) }.map {
            .version(LibraryCopy(version: $0, file: path))
        }
    }

    /// `SampleContracts` for `libSampleContracts.so`: the library a SwiftPM product of that name builds.
    static func libraryName(_ file: String) -> String? {
        guard file.hasPrefix("lib"), file.hasSuffix(".so") else { return nil }
        let name = file.dropFirst(3).dropLast(3)
        guard !name.isEmpty, name.utf8.allSatisfy(PluginHeader.isIdentifierByte) else { return nil }
        return String(name)
    }
}
