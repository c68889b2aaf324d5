import Foundation
import TestSupport
import Testing

extension DistributedContractEvolutionTests {
    /// A folder with the contract library as `release` has it and a package of plugins against it,
    /// built; the plugins' files.
    static func build(_ release: Release) async throws -> Build {
        let files = FileManager.default
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("distributed-evolution-\(UUID().uuidString)")
        await folders.add(work)
        let plugins = work.appendingPathComponent("Plugins")
        let hasCaller = release != .changed
        var sources: [(String, String)] = [
            ("EvolvingContracts/Package.swift", manifest(name: "EvolvingContracts", products: ["EvolvingContracts"], contracts: false)),
            ("EvolvingContracts/Sources/EvolvingContracts/Notebook.swift", contract(release)),
            ("Plugins/Package.swift", manifest(name: "Plugins", products: ["NotebookServer"] + (hasCaller ? ["NotebookCaller"] : []),
                                               contracts: true)),
            ("Plugins/Sources/NotebookServer/Server.swift", server(release)),
        ]
        if hasCaller { sources.append(("Plugins/Sources/NotebookCaller/Caller.swift", caller(release))) }
        for (path, text) in sources {
            let file = work.appendingPathComponent(path)
            try files.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let build = try await runBuild("/usr/bin/env", ["swift", "build"], in: plugins, log: work, timeout: BuildSlot.packageBuildTimeout)
        try #require(build.status == 0, "swift build of release \(release.name) failed (\(build.status)):\n\(build.output)")
        let folder = plugins.appendingPathComponent(".build/debug")
        return Build(release: release, server: folder.appendingPathComponent("libNotebookServer.so").path,
                     caller: hasCaller ? folder.appendingPathComponent("libNotebookCaller.so").path : nil, work: work)
    }

    /// A package of dynamic libraries `products` (each a target of its name), against the repository's
    /// PluginAPI and PluginActors and, for the plugins, the contract library beside them. The contract
    /// library is built for library evolution, as `host new contracts` writes one.
    static func manifest(name: String, products: [String], contracts: Bool) -> String {
        let sources = repositoryRoot.appendingPathComponent("Sources").path
        var packages = [#".package(path: "\#(sources)/PluginAPI")"#, #".package(path: "\#(sources)/PluginActors")"#]
        var dependencies = [#".product(name: "PluginAPI", package: "PluginAPI")"#, #".product(name: "PluginActors", package: "PluginActors")"#]
        var settings = [".swiftLanguageMode(.v6)"]
        if contracts {
            packages.append(#".package(path: "../EvolvingContracts")"#)
            dependencies.append(#".product(name: "EvolvingContracts", package: "EvolvingContracts")"#)
        } else {
            settings.append(#".unsafeFlags(["-enable-library-evolution"])"#)
        }
        let libraries = products.map { #".library(name: "\#($0)", type: .dynamic, targets: ["\#($0)"])"# }
        let targets = products.map { name in
            #".target(name: "\#(name)", dependencies: [\#(dependencies.joined(separator: ", "))], swiftSettings: [\#(settings.joined(separator: ", "))])"#
        }
        return """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(
                name: "\(name)",
                products: [\(libraries.joined(separator: ", "))],
                dependencies: [\(packages.joined(separator: ", "))],
                targets: [\(targets.joined(separator: ", "))]
            )

            """
    }

    /// EvolvingContracts as `release` has it: `Note`, the `@Resolvable` protocol `Notebook`, its key, its version.
    static func contract(_ release: Release) -> String {
        let note = switch release {
        case .older, .changed:
            """
            public struct Note: Codable, Sendable, Equatable {
                public var text: String
                public var count: \(release == .changed ? "String" : "Int")

                public init(text: String, count: \(release == .changed ? "String" : "Int")) {
                    self.text = text
                    self.count = count
                }
            }
            """
        case .newer:
            """
            public struct Note: Codable, Sendable, Equatable {
                public var text: String
                public var count: Int
                /// Added in 1.1: 1 when the peer that wrote the note did not send it.
                public var priority: Int

                enum CodingKeys: String, CodingKey { case text, count, priority }

                public init(text: String, count: Int) {
                    self.init(text: text, count: count, priority: 1)
                }

                public init(text: String, count: Int, priority: Int) {
                    self.text = text
                    self.count = count
                    self.priority = priority
                }

                public init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    text = try container.decode(String.self, forKey: .text)
                    count = try container.decode(Int.self, forKey: .count)
                    priority = try container.decodeIfPresent(Int.self, forKey: .priority) ?? 1
                }
            }
            """
        }
        let added = release != .newer ? "" : """
                /// Added in 1.1: the notes' texts, joined.
                distributed func summary(of notes: [Note]) -> String
            }

            extension Notebook {
                /// Added in 1.1 with a default, so that a conformer built against 1.0 has one.
                public distributed func summary(of notes: [Note]) -> String { "" }
            """
        return """
            public import Distributed
            public import PluginActors
            public import PluginAPI

            /// What the notebook's calls carry.
            \(note)

            /// A service served in process or from a process of its own.
            @Resolvable
            public protocol Notebook: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
                /// The note as the service read it, stamped.
                distributed func stamp(_ note: Note) -> Note
                /// The id of the process that serves it.
                distributed func pid() -> Int32
            \(added)
            }

            public enum NotebookKeys {
                public static let notebook = DistributedServiceEasyKey<any Notebook, $Notebook<PluginActorSystem>>(name: "evolving.notebook")
            }

            extension LibraryVersion {
                @_alwaysEmitIntoClient
                public static var evolvingContracts: LibraryVersion { LibraryVersion("EvolvingContracts", \(release.version)) }
            }

            @c(swift_library_version_EvolvingContracts)
            public func evolvingContractsLoadedVersion() -> UInt64 { LibraryVersion.evolvingContracts.encoded }

            """
    }

    /// The plugin `evolving-notebook`: serves `Notebook`, saying in each stamp which release read the note.
    static func server(_ release: Release) -> String {
        let methods = switch release {
        case .older:
            #"distributed func stamp(_ note: Note) -> Note { Note(text: "\(note.text) read by 1.0", count: note.count + 1) }"#
        case .changed:
            #"distributed func stamp(_ note: Note) -> Note { Note(text: "\(note.text) read by 2.0", count: note.count + "!") }"#
        case .newer:
            #"""
            distributed func stamp(_ note: Note) -> Note {
                    Note(text: "\(note.text) read by 1.1 with priority \(note.priority)", count: note.count + 1, priority: note.priority + 1)
                }

                distributed func summary(of notes: [Note]) -> String { notes.map(\.text).joined(separator: "+") }
            """#
        }
        return """
            import Distributed
            import EvolvingContracts
            import Glibc
            import PluginActors
            import PluginAPI

            distributed actor NotebookService: Notebook {
                typealias ActorSystem = PluginActorSystem

                init() {
                    actorSystem = .shared
                }

                \(methods)

                distributed func pid() -> Int32 { getpid() }
            }

            struct ServerPlugin: Plugin {
                static let metadata = PluginMetadata(name: "evolving-notebook", version: "\(release.name)", provides: [NotebookKeys.notebook])
                static let contractLibraries: [LibraryVersion] = [.pluginActors, .evolvingContracts]
                func registerServices(in registrar: ModuleRegistrar) throws {
                    try registrar.addLazyService(key: NotebookKeys.notebook) { NotebookService() }
                }
            }

            @c(swift_plugin_entry)
            public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(ServerPlugin.self) }

            """
    }

    /// The plugin `evolving-caller`: requires the notebook, calls it in its start hook and provides
    /// `evolving.answer`: each call's result or the kind of error it failed with and its text.
    static func caller(_ release: Release) -> String {
        let calls = switch release {
        case .older, .changed:
            #"""
            parts.append(await outcome("stamp") {
                        let note = try await notebook.stamp(Note(text: "hello", count: 41))
                        return "\(note.text)|\(note.count)"
                    })
            """#
        case .newer:
            #"""
            parts.append(await outcome("stamp") {
                        let note = try await notebook.stamp(Note(text: "hello", count: 41, priority: 5))
                        return "\(note.text)|\(note.count)|\(note.priority)"
                    })
                    parts.append(await outcome("summary") {
                        try await notebook.summary(of: [Note(text: "a", count: 1), Note(text: "b", count: 2)])
                    })
            """#
        }
        return #"""
            import EvolvingContracts
            import Foundation
            import PluginActors
            import PluginAPI

            struct CallerPlugin: Plugin {
                static let answer = ServiceLocatorEasyKey<String>(name: "evolving.answer")
                static let metadata = PluginMetadata(name: "evolving-caller", version: "1.0.0", provides: [answer],
                                                     requires: [NotebookKeys.notebook])
                static let contractLibraries: [LibraryVersion] = [.pluginActors, .evolvingContracts]

                let answered = Answer()

                func registerServices(in registrar: ModuleRegistrar) throws {
                    let answered = answered
                    try registrar.addService(key: Self.answer, mode: .many) { answered.text ?? "not started" }
                }

                func start(services: ServiceResolver) async throws {
                    let notebook = try services.tryService(key: NotebookKeys.notebook)
                    let before = try await notebook.pid()
                    var parts = ["otherProcess=\(before != getpid())"]
                    \#(calls)
                    let after = try await notebook.pid()
                    parts.append("samePid=\(before == after)")
                    answered.text = parts.joined(separator: "; ")
                }
            }

            /// `name=` what `call` answered, or the kind of error it failed with and its text.
            func outcome(_ name: String, _ call: () async throws -> String) async -> String {
                do {
                    return "\(name)=\(try await call())"
                } catch let error as PluginActorError {
                    let kind = switch error {
                    case .notServed: "notServed"
                    case .invalidMessage: "invalidMessage"
                    case .remoteFailure: "remoteFailure"
                    default: "otherPluginActorError"
                    }
                    return "\(name)=\(kind)[\(error)]"
                } catch {
                    return "\(name)=otherError[\(String(reflecting: type(of: error))): \(error)]"
                }
            }

            /// The answer, set once by the start hook and read by any thread.
            final class Answer: @unchecked Sendable {
                private let lock = NSLock()
                private var value: String?
                var text: String? {
                    get { lock.withLock { value } }
                    set { lock.withLock { value = newValue } }
                }
            }

            @c(swift_plugin_entry)
            public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(CallerPlugin.self) }

            """#
    }
}
