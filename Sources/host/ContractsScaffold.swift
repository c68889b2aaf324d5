/// The files of a contract library package, as `host new contracts NAME` writes them: the template's
/// `WeatherContracts` (Templates/PluginTemplate) made from NAME, in the standard SwiftPM layout. With
/// `distributed`, the protocol is a distributed-actor one, whose services a host may serve from a
/// process of their own.
enum ContractsScaffold {
    /// The package's files. `hostPackage` is the path of the SwiftPluginHost package as the manifest
    /// says it (relative to the new package when it can be).
    static func files(_ names: ScaffoldNames, hostPackage: String, distributed: Bool) -> [ScaffoldFile] {
        let library = names.library
        return [
            ScaffoldFile(path: "Package.swift", text: manifest(names, hostPackage: hostPackage, distributed: distributed)),
            ScaffoldFile(path: "Sources/\(library)/\(names.serviceProtocol).swift",
                         text: distributed ? distributedContract(names) : contract(names)),
            ScaffoldFile(path: "Sources/\(library)/Version.swift", text: version(names)),
            ScaffoldFile(path: "ci/check-abi", text: checkABI(names), executable: true),
            ScaffoldFile.gitignore,
        ]
    }

    private static func manifest(_ names: ScaffoldNames, hostPackage: String, distributed: Bool) -> String {
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
            // PluginActors: the actor system a distributed contract's key names.
            hostProducts: distributed ? ["PluginAPI", "PluginActors"] : ["PluginAPI"],
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

    /// The contract as a distributed-actor protocol that names no actor system: a plugin's actor serves
    /// it in the host's process (handed out as itself) or from a process of its own (a proxy).
    private static func distributedContract(_ names: ScaffoldNames) -> String {
        let message = names.base + "Message"
        return """
        import Distributed
        import PluginActors
        import PluginAPI

        /// What `\(names.serviceProtocol).reply(to:)` takes and returns: an example. What crosses a
        /// process is `Codable`; once released, a field may be added only with a default value.
        public struct \(message): Codable, Sendable, Equatable {
            public var text: String

            public init(text: String) {
                self.text = text
            }
        }

        /// What a plugin provides under `\(names.keys).service` and other plugins (or a host) use, in
        /// the host's process or from a process of its own (`host ... --own-process FILE`). Every call
        /// is `try await`: from another process it may fail (a `PluginActorError`). `reply(to:)` is an
        /// example: replace it with what your plugins share. Once released, a method may be added, never
        /// renamed or changed (a call names its method on the wire).
        @Resolvable
        public protocol \(names.serviceProtocol): DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
            /// An answer to `message`.
            distributed func reply(to message: \(message)) -> \(message)
        }

        /// The keys of the \(names.library): each names a slot, the type of its service and the
        /// proxy that reaches it in another process.
        public enum \(names.keys) {
            /// The \(names.lowercased) service.
            public static let service = DistributedServiceEasyKey<any \(names.serviceProtocol), $\(names.serviceProtocol)<PluginActorSystem>>(
                name: "\(names.serviceKey)")
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
