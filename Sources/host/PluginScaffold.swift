/// The files of a plugin package, as `host new plugin NAME` writes them: one plugin, as the template's
/// (Templates/PluginTemplate), made from NAME. With a contracts package, the plugin provides the
/// service of its protocol; without, a service of its own key.
enum PluginScaffold {
    /// The contract library a plugin provides the service of, and its path as the manifest says it.
    struct Contracts {
        let names: ScaffoldNames
        let path: String
        /// True for a distributed contract: the plugin serves it as a distributed actor (or, using
        /// it, calls a proxy of PluginActors' system).
        let isDistributed: Bool
        /// True if the plugin uses the service (requires and calls it) rather than providing it.
        let isUsed: Bool
    }

    /// The package's files. `hostPackage` is the path of the SwiftPluginHost package as the manifest
    /// says it (relative to the new package when it can be).
    static func files(_ names: ScaffoldNames, hostPackage: String, contracts: Contracts?) -> [ScaffoldFile] {
        [
            ScaffoldFile(path: "Package.swift", text: manifest(names, hostPackage: hostPackage, contracts: contracts)),
            ScaffoldFile(path: "Sources/\(names.library)/\(names.library).swift",
                         text: contracts.map { contracts in
                             if contracts.isUsed { return userSource(names, using: contracts) }
                             return contracts.isDistributed ? distributedSource(names, serving: contracts.names)
                                                            : source(names, providing: contracts.names)
                         } ?? source(names)),
            ScaffoldFile.gitignore,
        ]
    }

    private static func manifest(_ names: ScaffoldNames, hostPackage: String, contracts: Contracts?) -> String {
        PackageManifest(
            library: names.library,
            about: [
                "\(names.library): a plugin for the SwiftPluginHost `host` (written by `host new plugin`).",
                "`swift build` writes .build/debug/lib\(names.library).so, the file the host loads.",
            ],
            productReason: ["A dynamic library: the file the host opens."],
            hostPackage: hostPackage,
            others: contracts.map { [PackageManifest.Dependency(
                name: $0.names.library, path: $0.path,
                reason: "The contract library whose service the plugin \($0.isUsed ? "uses" : "provides"): shared, as lib\($0.names.library).so.")]
            } ?? [],
            // PluginActors: the actor system a distributed contract's service runs on.
            hostProducts: contracts?.isDistributed == true ? ["PluginAPI", "PluginActors"] : ["PluginAPI"]
        ).text
    }

    /// A plugin that provides a service of its own key: a String, a type the host and every plugin know.
    private static func source(_ names: ScaffoldNames) -> String {
        """
        import PluginAPI

        /// Provides a greeting under a key of its own. Replace them with your services; a protocol other
        /// plugins use belongs in a contract library (`host new contracts NAME`, then `host new plugin
        /// NAME --contracts PATH`).
        struct \(names.library): Plugin {
            /// The greeting's key: its name, and the type of its service.
            static let greeting = ServiceLocatorEasyKey<String>(name: "\(names.greetingKey)")
            static let metadata = PluginMetadata(name: "\(names.lowercased)", version: "1.0.0", provides: [greeting])

            func registerServices(in registrar: ModuleRegistrar) throws {
                // Made on the first get, once.
                try registrar.addLazyService(key: Self.greeting) { "Hello from the \(names.lowercased) plugin" }
            }
        }

        /// What the host calls when it opens the library: the plugin's header.
        @c(swift_plugin_entry)
        public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(\(names.library).self) }

        """
    }

    /// A plugin that provides the service of a contract library's protocol.
    private static func source(_ names: ScaffoldNames, providing contracts: ScaffoldNames) -> String {
        let service = names.base + contracts.serviceProtocol
        return """
        import PluginAPI
        import \(contracts.library)

        /// Provides the \(contracts.library)' service, `\(contracts.keys).service`.
        struct \(names.library): Plugin {
            static let metadata = PluginMetadata(name: "\(names.lowercased)", version: "1.0.0",
                                                 provides: [\(contracts.keys).service])
            // The contract libraries it uses: their versions are compiled into the plugin and checked at load.
            static let contractLibraries: [LibraryVersion] = [.\(contracts.versionProperty)]

            func registerServices(in registrar: ModuleRegistrar) throws {
                try registrar.addService(key: \(contracts.keys).service, service: \(service)())
            }
        }

        /// This plugin's \(contracts.serviceProtocol).
        struct \(service): \(contracts.serviceProtocol), CustomStringConvertible {
            func summary() -> String { "\(contracts.base) from the \(names.lowercased) plugin" }

            /// What `host resolve \(contracts.serviceKey)` prints.
            var description: String { summary() }
        }

        /// What the host calls when it opens the library: the plugin's header.
        @c(swift_plugin_entry)
        public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(\(names.library).self) }

        """
    }
    /// A plugin that serves a distributed contract's service: a distributed actor of PluginActors'
    /// system, handed out as itself in the host's process, reached through a proxy from another.
    private static func distributedSource(_ names: ScaffoldNames, serving contracts: ScaffoldNames) -> String {
        let service = names.base + contracts.serviceProtocol
        let message = contracts.base + "Message"
        return """
        import Distributed
        import PluginActors
        import PluginAPI
        import \(contracts.library)

        /// Provides the \(contracts.library)' service, `\(contracts.keys).service`, in the host's process
        /// or, with `host ... --own-process lib\(names.library).so`, from a process of its own.
        struct \(names.library): Plugin {
            static let metadata = PluginMetadata(name: "\(names.lowercased)", version: "1.0.0",
                                                 provides: [\(contracts.keys).service])
            // The libraries it uses: their versions are compiled into the plugin and checked at load.
            static let contractLibraries: [LibraryVersion] = [.pluginActors, .\(contracts.versionProperty)]

            func registerServices(in registrar: ModuleRegistrar) throws {
                // Made on the first get, once.
                try registrar.addLazyService(key: \(contracts.keys).service) { \(service)() }
            }
        }

        /// This plugin's \(contracts.serviceProtocol).
        distributed actor \(service): \(contracts.serviceProtocol) {
            typealias ActorSystem = PluginActorSystem

            init() {
                actorSystem = .shared
            }

            distributed func reply(to message: \(message)) -> \(message) {
                \(message)(text: "\\(message.text), from the \(names.lowercased) plugin")
            }
        }

        /// What the host calls when it opens the library: the plugin's header.
        @c(swift_plugin_entry)
        public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(\(names.library).self) }

        """
    }

    /// A plugin that uses a contract library's service, which another plugin provides (in the host's
    /// process or, for a distributed contract, perhaps from a process of its own): it requires the key,
    /// and calls the service in its start hook.
    private static func userSource(_ names: ScaffoldNames, using contracts: Contracts) -> String {
        let library = contracts.names
        let (imports, versions, call) = contracts.isDistributed
            ? ("import PluginActors\n", ".pluginActors, .\(library.versionProperty)",
               "try await service.reply(to: \(library.base)Message(text: \"hello\")).text")
            : ("", ".\(library.versionProperty)", "service.summary()")
        return """
        \(imports)import PluginAPI
        import \(library.library)

        /// Uses the \(library.library)' service, `\(library.keys).service`, which another plugin provides:
        /// it calls it once it starts, and logs the answer. Replace that with your use of it.
        struct \(names.library): Plugin {
            static let metadata = PluginMetadata(name: "\(names.lowercased)", version: "1.0.0", provides: [],
                                                 requires: [\(library.keys).service])
            // The libraries it uses: their versions are compiled into the plugin and checked at load.
            static let contractLibraries: [LibraryVersion] = [\(versions)]

            func registerServices(in registrar: ModuleRegistrar) throws {
                // Nothing of its own yet: register your services here, and declare them in `provides`.
            }

            func start(services: ServiceResolver) async throws {
                let service = try services.tryService(key: \(library.keys).service)
                let answer = \(call)
                services.log.info("\(library.serviceProtocol) answered: \\(answer)")
            }
        }

        /// What the host calls when it opens the library: the plugin's header.
        @c(swift_plugin_entry)
        public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(\(names.library).self) }

        """
    }
}
