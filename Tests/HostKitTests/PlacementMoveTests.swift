import FixtureRemoteContracts
import Foundation
import Glibc
import HostKit
import PluginAPI
import PluginActors
import TestSupport
import Testing

/// A plugin moved live: the operator changes its placement in the settings file (`placement`) and
/// reloads, and the plugin, its file unchanged, is opened anew in its new place and swapped in as an
/// upgrade is. The echo plugin answers `pid()` with its process's id: this one's in process, its
/// child's out of it.
@Suite struct PlacementMoveTests {
    let echo = "libecho.so"

    /// Writes the settings file in `folder` with `placement`.
    @discardableResult
    static func placing(_ placement: [String: String], in folder: TemporaryFolder) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: ["plugins": [String: Any](), "placement": placement], options: [.sortedKeys])
        return try folder.write("settings.json", Array(data))
    }

    /// A host started with no `--own-process` file, reading `placement` from a settings file in
    /// `settings`, with the echo plugin (in `folder`, beside its contract library) loaded from `folder`
    /// (`whole`: every plugin in it); its children marked `mark`.
    func host(in folder: TemporaryFolder, settings: TemporaryFolder, mark: String,
              placement: [String: String] = [:], whole: Bool = false) async throws -> PluginHost {
        try folder.install("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        try folder.install("FixtureEchoPlugin", as: echo)
        let file = try Self.placing(placement, in: settings)
        var processes = OwnProcessTests.processes()
        processes.files = []
        processes.environment[OwnProcessReloadTests.markVariable] = mark
        let host = PluginHost(startTimeout: .seconds(300), processes: processes,
                              settings: try PluginSettingsFile(contentsOf: file)) { _ in }
        let source: PluginSource = whole ? .directory(folder.path) : .file(folder.file(echo))
        let report = await onAThreadOfItsOwn { host.load([source]) }
        #expect(report.problems.isEmpty, "\(report.problems)")
        return host
    }

    @Test func aPluginMovesIntoAProcessOfItsOwnAndBackAtAReload() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder(), mark = UUID().uuidString
        let host = try await host(in: folder, settings: settings, mark: mark)
        defer { host.shutdown() }
        #expect(try await host.locator.tryService(key: RemoteKeys.echo).pid() == getpid())

        try Self.placing([echo: "own-process"], in: settings)
        let out = await onAThreadOfItsOwn { host.reload() }
        #expect(out.entries.map(\.summary) == ["moved fixture-echo 1.0.0 (\(folder.file(echo))): in process -> own process"],
                "\(out.text)")
        #expect(out.entries.first?.movedTo == .ownProcess)
        #expect(out.stopped.lines == ["stopped fixture-echo (old instance, replaced)"], "\(out.text)")
        let child = try await host.locator.tryService(key: RemoteKeys.echo).pid()
        #expect(child != getpid())
        #expect(OwnProcessReloadTests.processes(marked: mark) == [child])
        #expect(try await host.locator.tryService(key: RemoteKeys.echo).echo(EchoMessage(text: "out", number: 1, tags: [])).text == "out")

        // A reload that finds the placement as it is moves nothing.
        let again = await onAThreadOfItsOwn { host.reload() }
        #expect(again.entries.isEmpty && again.unchanged == 1, "\(again.text)")

        try Self.placing(["*": "in-process"], in: settings)
        let back = await onAThreadOfItsOwn { host.reload() }
        #expect(back.entries.map(\.summary) == ["moved fixture-echo 1.0.0 (\(folder.file(echo))): own process -> in process;"
                                                + " out of its sandbox, it runs with the host's rights"], "\(back.text)")
        #expect(try await host.locator.tryService(key: RemoteKeys.echo).pid() == getpid())
        #expect(try await poll(atMost: .seconds(30)) { !OwnProcessReloadTests.exists(child) }, "process \(child) is still there")
        #expect(OwnProcessReloadTests.processes(marked: mark).isEmpty)
    }

    /// A plugin opened before by another host of the process, whose folder of copies was elsewhere
    /// and is gone, moves out as well: its process's private folder is made where this host's copies
    /// go, not beside the first host's (the loader hands a file opened before back as it was opened).
    @Test func aPluginAnotherHostOpenedFirstMovesOutBesideThisHostsCopies() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder(), mark = UUID().uuidString
        try folder.install("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        try folder.install("FixtureEchoPlugin", as: echo)
        var copies: TemporaryFolder? = try TemporaryFolder()
        let first = PluginHost(discovery: PluginDiscovery(shadowFolder: copies?.path)) { _ in }
        let opened = await onAThreadOfItsOwn { first.load([.file(folder.file(echo))]) }
        #expect(opened.problems.isEmpty, "\(opened.text)")
        first.shutdown()
        copies = nil

        var processes = OwnProcessTests.processes()
        processes.files = []
        processes.environment[OwnProcessReloadTests.markVariable] = mark
        let host = PluginHost(processes: processes, settings: try PluginSettingsFile(contentsOf: Self.placing([:], in: settings))) { _ in }
        defer { host.shutdown() }
        let loaded = await onAThreadOfItsOwn { host.load([.file(folder.file(echo))]) }
        #expect(loaded.problems.isEmpty, "\(loaded.text)")
        try Self.placing([echo: "own-process"], in: settings)
        let out = await onAThreadOfItsOwn { host.reload() }
        #expect(out.entries.map(\.summary) == ["moved fixture-echo 1.0.0 (\(folder.file(echo))): in process -> own process"],
                "\(out.text)")
        #expect(try await host.locator.tryService(key: RemoteKeys.echo).pid() != getpid())
    }

    /// A plugin that requires one upgraded in the same reload is restarted with the upgrade; if the
    /// operator placed it elsewhere meanwhile, it is restarted there, in that one step, reported
    /// `moved` (not restarted in its old place and left there, or moved in a second swap).
    @Test func aPluginRestartedWithAnUpgradeMovesInTheSameStep() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder(), mark = UUID().uuidString
        let relay = "librelay.so"
        try folder.install("FixtureEchoRelayPlugin", as: relay)
        let host = try await host(in: folder, settings: settings, mark: mark, whole: true)
        defer { host.shutdown() }
        let relayKey = DistributedServiceEasyKey<any Echo, $Echo<PluginActorSystem>>(name: "fixture.echo-relay")
        #expect(try await host.locator.tryService(key: relayKey).pid() == getpid())

        try folder.install("FixtureEchoPluginTwo", as: echo)
        try Self.placing([relay: "own-process"], in: settings)
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.map(\.summary) == ["upgraded fixture-echo 1.0.0 -> 2.0.0 (\(folder.file(echo)))",
                                                  "moved fixture-echo-relay 1.0.0 (\(folder.file(relay))): in process -> own process"],
                "\(report.text)")
        let child = try await host.locator.tryService(key: relayKey).pid()
        #expect(child != getpid())
        #expect(OwnProcessReloadTests.processes(marked: mark) == [child])
    }

    /// A new version deployed in the reload that placed its plugin elsewhere is opened in the new
    /// place: the `upgraded` line says it moved too (back in: that it leaves its sandbox).
    @Test func anUpgradeOpenedInItsNewPlaceSaysItMoved() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder(), mark = UUID().uuidString
        let host = try await host(in: folder, settings: settings, mark: mark)
        defer { host.shutdown() }
        try folder.install("FixtureEchoPluginTwo", as: echo)
        try Self.placing([echo: "own-process"], in: settings)
        let out = await onAThreadOfItsOwn { host.reload() }
        #expect(out.entries.map(\.summary) == ["upgraded fixture-echo 1.0.0 -> 2.0.0 (\(folder.file(echo))); moved in process -> own process"],
                "\(out.text)")
        #expect(out.entries.first?.movedTo == .ownProcess)
        #expect(try await host.locator.tryService(key: RemoteKeys.echo).pid() != getpid())

        try folder.install("FixtureEchoPlugin", as: echo)
        try Self.placing([echo: "in-process"], in: settings)
        let back = await onAThreadOfItsOwn { host.reload() }
        #expect(back.entries.map(\.summary) == ["upgraded fixture-echo 2.0.0 -> 1.0.0 (\(folder.file(echo))); moved own process -> in process;"
                                                + " out of its sandbox, it runs with the host's rights"], "\(back.text)")
        #expect(try await host.locator.tryService(key: RemoteKeys.echo).pid() == getpid())
    }

    /// A plugin that cannot leave the host's process (a plain contract) holds back no move of a plugin
    /// it requires: placed out with it (`*`), it is restarted where it is, and its own move is `kept`.
    @Test func aDependantThatCannotMoveHoldsBackNoMoveOfItsProvider() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder(), mark = UUID().uuidString
        try folder.install("FixtureEchoUserPlugin", as: "libuser.so")
        let host = try await host(in: folder, settings: settings, mark: mark, whole: true)
        defer { host.shutdown() }
        try Self.placing(["*": "own-process"], in: settings)
        let report = await onAThreadOfItsOwn { host.reload() }
        let lines = report.entries.map(\.summary)
        #expect(lines.count == 3 && lines.first == "moved fixture-echo 1.0.0 (\(folder.file(echo))): in process -> own process"
                && lines.dropFirst().first == "restarted fixture-echo-user 1.0.0 (\(folder.file("libuser.so")))"
                && lines.last?.hasPrefix("kept fixture-echo-user 1.0.0") == true && lines.last?.contains("not distributed") == true,
                "\(report.text)")
        #expect(try await host.locator.tryService(key: RemoteKeys.echo).pid() != getpid())
        #expect(host.locator.slotInfo(forKey: "fixture.echo-user.answer") != nil)
    }

    /// A plugin whose contract is a plain protocol cannot leave the host's process: the move is
    /// refused naming the key, and the plugin serves on in process.
    @Test func aPlainContractIsKeptInProcessNamingTheKey() async throws {
        let settings = try TemporaryFolder()
        let clock = BuiltPlugins.path("ClockPlugin")
        let file = try Self.placing([:], in: settings)
        var processes = OwnProcessTests.processes()
        processes.files = []
        let host = PluginHost(processes: processes, settings: try PluginSettingsFile(contentsOf: file)) { _ in }
        defer { host.shutdown() }
        let loaded = await onAThreadOfItsOwn { host.load([.file(clock)]) }
        #expect(loaded.problems.isEmpty, "\(loaded.text)")

        try Self.placing([URL(fileURLWithPath: clock).lastPathComponent: "own-process"], in: settings)
        let report = await onAThreadOfItsOwn { host.reload() }
        let entry = try #require(report.entries.first, "\(report.text)")
        #expect(report.entries.count == 1 && entry.action == .kept, "\(report.text)")
        #expect(entry.summary.contains("sample.clock") && entry.summary.contains("not distributed"), "\(entry.summary)")
        #expect(host.locator.slotInfo(forKey: "sample.clock") != nil)
        // Its process was refused before it started anything: nothing to stop.
        #expect(report.stopped.lines.isEmpty, "\(report.text)")
    }

    /// Calls that each get the service from the host's locator, as a server's requests do, all answer
    /// while the plugin moves out of the host's process and back, twice: a call the old instance
    /// has is answered there (its process is stopped once it has none left), later ones by the new.
    @Test func callsDuringMovesAllAnswer() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder(), mark = UUID().uuidString
        let host = try await host(in: folder, settings: settings, mark: mark)
        defer { host.shutdown() }
        let moving = Collected(true)
        // Four callers at once, each until the moves are done (and at least once).
        let callers = (0..<4).map { caller in
            Task {
                var answered = 0, failures: [String] = []
                while moving.withLock({ $0 }) || answered == 0 {
                    do {
                        let message = EchoMessage(text: "caller \(caller), call \(answered)", number: answered, tags: [])
                        let answer = try await host.locator.tryService(key: RemoteKeys.echo).echo(message)
                        if answer.text == message.text { answered += 1 } else { failures.append("answered \(answer.text)") }
                    } catch {
                        failures.append("\(error)")
                    }
                    // A call in process may never suspend: without this, four callers held both threads
                    // of the pool, and the reload, which needs it too, never came (a whole CI run hung).
                    await Task.yield()
                }
                return (answered, failures)
            }
        }
        for placement in ["own-process", "in-process", "own-process", "in-process"] {
            try Self.placing([echo: placement], in: settings)
            let report = await onAThreadOfItsOwn { host.reload() }
            #expect(report.entries.map(\.action) == [.moved] && !report.hasProblems, "\(report.text)")
        }
        moving.withLock { $0 = false }
        var answered = 0, failures: [String] = []
        for caller in callers {
            let (its, theirs) = await caller.value
            answered += its
            failures += theirs
        }
        #expect(failures.isEmpty, "\(failures.count) of \(answered + failures.count) calls failed: \(failures.prefix(3))")
        #expect(answered > 0)
        print("callsDuringMovesAllAnswer: \(answered) calls answered")
        #expect(try await poll(atMost: .seconds(30)) { OwnProcessReloadTests.processes(marked: mark).isEmpty })
    }

    /// What the settings file's `placement` may hold: a file name, an absolute path (made real; not a
    /// folder, no `.` or `..` or empty part) or `*`, each `in-process` or `own-process`; anything else
    /// makes the file unusable, saying what.
    @Test func aPlacementThatIsNoneIsRefusedSayingWhat() throws {
        let settings = try TemporaryFolder()
        let good = try PluginSettingsFile(contentsOf: try Self.placing(["libA.so": "own-process", "/srv/libB.so": "in-process",
                                                                         "*": "in-process"], in: settings))
        #expect(good.placements == ["libA.so": .ownProcess, "/srv/libB.so": .inProcess, "*": .inProcess])
        for (placement, says) in [(["libA.so": "elsewhere"], "neither in-process nor own-process"),
                                  (["lib/A.so": "in-process"], "neither a file name, an absolute path nor *")] {
            let error = #expect(throws: PluginSettingsFile.Unusable.self) {
                try PluginSettingsFile(contentsOf: try Self.placing(placement, in: settings))
            }
            #expect(error?.reason.contains(says) == true, "\(String(describing: error))")
        }
        let folderError = #expect(throws: PluginSettingsFile.Unusable.self) {
            try PluginSettingsFile(contentsOf: try Self.placing([settings.path: "in-process"], in: settings))
        }
        #expect(folderError?.reason.contains("a folder") == true, "\(String(describing: folderError))")
        for dotted in ["/srv/../libA.so", "/srv//libA.so", "/srv/libA.so/", ".."] {
            #expect(throws: PluginSettingsFile.Unusable.self, "\(dotted)") {
                try PluginSettingsFile(contentsOf: try Self.placing([dotted: "in-process"], in: settings))
            }
        }
        // A path is made real as the file is read: a link names the file it links to.
        let target = try settings.write("libReal.so", [0])
        let link = settings.file("libLink.so")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let linked = try PluginSettingsFile(contentsOf: try Self.placing([link: "own-process"], in: settings))
        #expect(linked.placements == [URL(fileURLWithPath: target).resolvingSymlinksInPath().path: .ownProcess])
        let data = Data(#"{"placement": ["libA.so"]}"#.utf8)
        let list = try settings.write("list.json", Array(data))
        #expect(throws: PluginSettingsFile.Unusable.self) { try PluginSettingsFile(contentsOf: list) }
    }
}
