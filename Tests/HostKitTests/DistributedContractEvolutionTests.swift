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
    static let folders = BuildFolders()

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
        #expect(answer.contains("does not serve EvolvingContracts.Notebook.summary(of: "), "\(answer)")
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
}

/// Folders to remove when the suite is done with them.
actor BuildFolders {
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
