import Foundation
import TestSupport
import Testing

/// A distributed contract library in two minor releases (and one release that broke it), a plugin
/// that serves it and a plugin that calls it built against each, as their authors would build them:
/// in packages of their own, with `swift build`. The `host` command loads the caller in its process
/// (which so has the caller's copy of the contract library) and serves the server from a process of
/// its own, which has the server's copy. Calls the two releases share work in both directions of
/// skew, a field one side lacks read with its default; a method only the caller's release has fails
/// by name, and so does a field whose type changed; the child lives on and answers the next call.
///
/// Not under a sanitizer: the builds cost CI minutes three times over, and what a sanitizer would
/// watch here (the reading of skewed frames) `ContractSkewTests` runs under it without a build.
@Suite(.serialized, RemovingBuildFolders(), .enabled(if: !underSanitizer, "package builds, in the plain run only"))
struct DistributedContractEvolutionTests {
    /// The release of the contract library (EvolvingContracts) a plugin is built against.
    enum Release {
        /// 1.0.0: `Note(text:count:)`, `stamp(_:)`, `pid()`.
        case older
        /// 1.1.0: adds `Note.priority` (1 when absent) and `summary(of:)` (with a default).
        case newer
        /// 2.0.0: 1.0.0 with `Note.count` a `String`: not an addition.
        case changed

        /// Its `LibraryVersion`'s arguments.
        var version: String {
            switch self {
            case .older: "1, 0, 0"
            case .newer: "1, 1, 0"
            case .changed: "2, 0, 0"
            }
        }

        /// Its version as reports print it.
        var printed: String { version.replacing(", ", with: ".") }

        /// How its server marks what it read.
        var name: String {
            switch self {
            case .older: "1.0"
            case .newer: "1.1"
            case .changed: "2.0"
            }
        }
    }

    /// The server's and the caller's files, built against one release (the changed one has no caller).
    struct Build {
        let release: Release
        let server: String
        let caller: String?
        let work: URL
    }

    // Each package build costs minutes, and waits for the other tests' builds (BuildSlot): built once,
    // each when a test first needs it; the time limits (BuildSlot.testTimeLimit) leave room for that wait.
    private static let older = Task { try await build(.older) }
    private static let newer = Task { try await build(.newer) }
    private static let changed = Task { try await build(.changed) }

    private static let host = "\(BuiltPlugins.directory)/host"

    /// The folders the builds made (each some 50 MB): removed once the suite's tests ran.
    fileprivate static let folders = BuildFolders()

    // MARK: The tests

    /// A host whose copy is 1.0 calls a child built against 1.1: the child reads the field 1.0 does
    /// not send as its default, and the host skips the one it does not know in the answer.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aHostOnTheOlderReleaseCallsAChildOnTheNewerOne() async throws {
        let (caller, server) = (try await Self.older.value, try await Self.newer.value)
        let answer = try await Self.run(caller: caller, server: server)
        #expect(answer.contains("stamp=hello read by 1.1 with priority 1|42;"), "\(answer)")
        #expect(answer.contains("samePid=true"), "\(answer)")
    }

    /// A host whose copy is 1.1 calls a child built against 1.0: the field 1.0 does not send back
    /// reads as its default; the method 1.0 lacks fails with `notServed` naming it, and the child
    /// answers the next call. With a child on 1.1 too, the same caller's calls all work.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aHostOnTheNewerReleaseCallsAChildOnTheOlderOne() async throws {
        let (caller, server) = (try await Self.newer.value, try await Self.older.value)
        let answer = try await Self.run(caller: caller, server: server)
        #expect(answer.contains("stamp=hello read by 1.0|42|1;"), "\(answer)")
        #expect(answer.contains("summary=notServed['libNotebookServer.so#"), "\(answer)")
        #expect(answer.contains("does not serve distributed thunk EvolvingContracts.$Notebook.summary(of: "), "\(answer)")
        #expect(answer.contains("the contract this process was built against has no such method"), "\(answer)")
        #expect(answer.contains("samePid=true"), "\(answer)")

        let same = try await Self.run(caller: caller, server: caller)
        #expect(same.contains("stamp=hello read by 1.1 with priority 5|42|6;"), "\(same)")
        #expect(same.contains("summary=a+b;"), "\(same)")
        #expect(same.contains("samePid=true"), "\(same)")
    }

    /// A child whose contract changed a field's type (`count`: `Int` to `String`) cannot read the
    /// host's argument: the call fails with `invalidMessage` naming the field, and the child lives on.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aChildWhoseContractChangedAFieldsTypeFailsTheCallByName() async throws {
        let (caller, server) = (try await Self.older.value, try await Self.changed.value)
        let answer = try await Self.run(caller: caller, server: server)
        #expect(answer.contains("stamp=invalidMessage["), "\(answer)")
        #expect(answer.contains("could not be decoded: typeMismatch at count"), "\(answer)")
        #expect(answer.contains("samePid=true"), "\(answer)")
    }

    /// `host run` with `caller`'s caller in its process and `server`'s server in a process of its own:
    /// the caller's answer (its start hook's calls, each `name=` its result or its error). The run
    /// succeeds, and the child was neither restarted nor the host's own process.
    private static func run(caller: Build, server: Build) async throws -> String {
        let callerFile = try #require(caller.caller)
        let run = try await runChild(host, ["run", "--own-process", server.server, "--plugins", server.server, "--plugins", callerFile,
                                            "--heartbeat", "0", "--restarts", "0", "--call-timeout", "120"],
                                     in: caller.work, log: caller.work, timeout: .seconds(5 * 60))
        #expect(run.status == 0, "\(run.output)")
        // Each process has the copy of the contract library its plugin was built against.
        let copy = URL(fileURLWithPath: callerFile).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("libEvolvingContracts.so")
        #expect(run.output.contains("built against EvolvingContracts \(caller.release.printed), uses \(caller.release.printed) (\(copy.path))"),
                "\(run.output)")
        #expect(run.output.contains("built against EvolvingContracts \(server.release.printed); in a process of its own, libNotebookServer.so#"),
                "\(run.output)")
        #expect(!run.output.contains("plugin process"), "the child ended: \(run.output)")
        // The last table is the services gotten (the slots' comes first).
        let line = try #require(run.output.split(separator: "\n").last { $0.hasPrefix("evolving.answer ") }, "\(run.output)")
        #expect(line.contains("otherProcess=true"), "\(line)")
        return String(line)
    }

    // MARK: The packages

    /// A folder with the contract library as `release` has it and a package of plugins against it,
    /// built; the plugins' files.
    private static func build(_ release: Release) async throws -> Build {
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
    private static func manifest(name: String, products: [String], contracts: Bool) -> String {
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
    private static func contract(_ release: Release) -> String {
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
    private static func server(_ release: Release) -> String {
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
    private static func caller(_ release: Release) -> String {
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

/// Folders to remove when the suite is done with them.
private actor BuildFolders {
    private var folders: [URL] = []

    func add(_ folder: URL) {
        folders.append(folder)
    }

    func removeAll() {
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        folders = []
    }
}

/// Runs a suite, then removes the folders its builds made (its tests share the builds, so no test can).
private struct RemovingBuildFolders: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        do {
            try await function()
        } catch {
            await DistributedContractEvolutionTests.folders.removeAll()
            throw error
        }
        await DistributedContractEvolutionTests.folders.removeAll()
    }
}
