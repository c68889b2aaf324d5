/// The files of a contract library package, as `host new contracts NAME` writes them: the template's
/// `WeatherContracts` (Templates/PluginTemplate) made from NAME, in the standard SwiftPM layout.
enum ContractsScaffold {
    /// The package's files. `hostPackage` is the path of the SwiftPluginHost package as the manifest
    /// says it (relative to the new package when it can be).
    static func files(_ names: ScaffoldNames, hostPackage: String) -> [ScaffoldFile] {
        let library = names.library
        return [
            ScaffoldFile(path: "Package.swift", text: manifest(names, hostPackage: hostPackage)),
            ScaffoldFile(path: "Sources/\(library)/\(names.serviceProtocol).swift", text: contract(names)),
            ScaffoldFile(path: "Sources/\(library)/Version.swift", text: version(names)),
            ScaffoldFile(path: "ci/check-abi", text: checkABI(names), executable: true),
            ScaffoldFile.gitignore,
        ]
    }

    private static func manifest(_ names: ScaffoldNames, hostPackage: String) -> String {
        PackageManifest(
            library: names.library,
            about: [
                "\(names.library): the protocols and keys that plugins share (written by `host new contracts`).",
                "Before each release, run ci/check-abi: it says what changed in the ABI since the last release,",
                "and whether the version in Sources/\(names.library)/Version.swift says so.",
            ],
            productReason: [
                "Dynamic, in a package of its own: the process holds one copy of its types, so one plugin's",
                "service is of the type another asks for (a plain target would be linked into each plugin).",
                "Built for library evolution, so a plugin built against an older release keeps working",
                "with a newer one that only adds.",
            ],
            hostPackage: hostPackage,
            unsafeFlags: ["-enable-library-evolution"]
        ).text
    }

    private static func contract(_ names: ScaffoldNames) -> String {
        """
        import PluginAPI

        /// What a plugin provides under `\(names.keys).service` and other plugins (or a host) use.
        /// `summary()` is an example: replace it with what your plugins share. Once released, a requirement
        /// may be added only with a default implementation (the host's YourOwnContracts article, "What a
        /// release may change").
        public protocol \(names.serviceProtocol): Sendable {
            /// The service in a few words.
            func summary() -> String
        }

        /// The keys of the \(names.library): each names a slot and the type of its service.
        public enum \(names.keys) {
            /// The \(names.lowercased) service.
            public static let service = ServiceLocatorEasyKey<any \(names.serviceProtocol)>(name: "\(names.serviceKey)")
        }

        """
    }

    private static func version(_ names: ScaffoldNames) -> String {
        """
        import PluginAPI

        extension LibraryVersion {
            /// \(names.library)' version, compiled into every plugin that lists it in its `contractLibraries`.
            /// Bump the minor version when a release adds a declaration, the major one for anything else.
            @_alwaysEmitIntoClient
            public static var \(names.versionProperty): LibraryVersion { LibraryVersion("\(names.library)", 1, 0, 0) }
        }

        /// The version of the \(names.library) the process loaded: the host compares it with the version a
        /// plugin was compiled against. The name must be `swift_library_version_` and the library's name.
        @c(swift_library_version_\(names.library))
        public func \(names.versionProperty)LoadedVersion() -> UInt64 { LibraryVersion.\(names.versionProperty).encoded }

        """
    }

    private static func checkABI(_ names: ScaffoldNames) -> String {
        """
        #!/bin/sh
        # Checks \(names.library)' ABI against its last release: run it before each release (and in CI).
        # A plugin built against an older release must keep working, so a release that breaks the ABI
        # needs a new major version, and one that adds a new minor version (Sources/\(names.library)/Version.swift).
        # `swift package check-abi` is the SwiftPluginHost package's command plugin; what it cannot
        # compare (no baseline yet, at the first release) it says how to set up.
        set -eu
        cd "$(dirname "$0")/.."
        swift build
        swift package check-abi "$@"

        """
    }
}
