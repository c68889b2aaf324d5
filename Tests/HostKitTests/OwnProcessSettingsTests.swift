import FixtureRemoteContracts
import Foundation
import HostKit
import PluginAPI
import PluginActors
import TestSupport
import Testing

/// A plugin placed in a process of its own reads its settings as it would in process: its process
/// asks the host, which answers from the plugin's own settings, and a reload that finds a value it
/// read changed starts it again in a new process.
@Suite struct OwnProcessSettingsTests {
    let echo = "libecho.so"

    /// A host that placed the echo plugin (installed in `folder`, beside the contract library it
    /// links) in a process of its own, its settings `plugins` from a file in `settings`, loaded.
    func loadedHost(in folder: TemporaryFolder, settings: TemporaryFolder, _ plugins: [String: Any]) async throws -> PluginHost {
        try folder.install("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        try folder.install("FixtureEchoPlugin", as: echo)
        let file = try PluginSettingsTests.settingsFile(in: settings, plugins)
        var processes = OwnProcessTests.processes()
        processes.files = [echo]
        let host = PluginHost(startTimeout: .seconds(300), processes: processes,
                              settings: try PluginSettingsFile(contentsOf: file)) { _ in }
        let loaded = await onAThreadOfItsOwn { host.load([.file(folder.file(echo))]) }
        #expect(loaded.problems.isEmpty, "\(loaded.text)")
        return host
    }

    /// The echo plugin's factory reads its `tag` setting in its process, while the host waits for
    /// the first call; the tag comes back with each message echoed.
    @Test func aPluginInAProcessOfItsOwnReadsItsSettingsAndAChangeStartsANewProcess() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder()
        let host = try await loadedHost(in: folder, settings: settings, ["fixture-echo": ["tag": "first"], "other": ["tag": "no"]])
        defer { host.shutdown() }
        let message = EchoMessage(text: "hi", number: 1, tags: ["a"])
        let old = try host.locator.tryService(key: RemoteKeys.echo)
        #expect(try await old.echo(message).tags == ["a", "first"])
        let oldPID = try await old.pid()

        try PluginSettingsTests.settingsFile(in: settings, ["fixture-echo": ["tag": "second"]])
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.map(\.action) == [.reconfigured] && report.entries.first?.settingsChanged == ["tag"],
                "\(report.text)")
        let new = try host.locator.tryService(key: RemoteKeys.echo)
        #expect(try await new.echo(message).tags == ["a", "second"])
        #expect(try await new.pid() != oldPID)
    }

    /// In process, beside the case above: the echo plugin read its `tag`, and one reload finds the tag
    /// changed and a new plugin that requires echo (the user). The user is added (started on the old
    /// echo instance, whose tag is the old one), then the echo plugin is reconfigured and the user,
    /// its dependent now, is stopped and started again: two entries and two starts for one plugin
    /// new to this reload. It must be added once, on the new instance.
    @Test func aPluginAddedBesideAReconfiguredProviderIsStartedOnce() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder()
        try folder.install("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        try folder.install("FixtureEchoPlugin", as: echo)
        let file = try PluginSettingsTests.settingsFile(in: settings, ["fixture-echo": ["tag": "first"]])
        let host = PluginHost(settings: try PluginSettingsFile(contentsOf: file)) { _ in }
        defer { host.shutdown() }
        let loaded = await onAThreadOfItsOwn { host.load([.directory(folder.path)]) }
        #expect(loaded.problems.isEmpty, "\(loaded.text)")
        // Its factory reads `tag`.
        let old = try host.locator.tryService(key: RemoteKeys.echo)
        #expect(try await old.echo(EchoMessage(text: "hi", number: 1, tags: [])).tags == ["first"])

        try PluginSettingsTests.settingsFile(in: settings, ["fixture-echo": ["tag": "second"]])
        try folder.install("FixtureEchoUserPlugin", as: "libecho-user.so")
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries(.reconfigured).map(\.plugin) == ["fixture-echo"], "\(report.text)")
        #expect(report.entries.filter { $0.plugin == "fixture-echo-user" }.map(\.action) == [.added], "\(report.text)")
        let answer = try host.locator.tryService(key: ServiceLocatorEasyKey<String>(name: "fixture.echo-user.answer"))
        #expect(answer.hasPrefix("hello 42 a,b,second "), "\(answer)")
    }

    /// One answer per key for an instance's life, across a crash: the echo plugin read `tag`, the
    /// operator edits it (no reload yet), the process crashes and is started again; the new process
    /// reads what the instance read (the host answers from what it recorded), and the next reload
    /// is what brings the new value in, in a new instance.
    @Test func aCrashRestartKeepsTheAnswersUntilAReload() async throws {
        let folder = try TemporaryFolder(), settings = try TemporaryFolder()
        let host = try await loadedHost(in: folder, settings: settings, ["fixture-echo": ["tag": "first"]])
        defer { host.shutdown() }
        let message = EchoMessage(text: "hi", number: 1, tags: [])
        let service = try host.locator.tryService(key: RemoteKeys.echo)
        #expect(try await service.echo(message).tags == ["first"])
        let before = try await service.pid()

        try PluginSettingsTests.settingsFile(in: settings, ["fixture-echo": ["tag": "second"]])
        try? await service.crash()
        try await waitFor(atMost: .seconds(60)) { (try? await service.pid()).map { $0 != before } ?? false }
        #expect(try await service.echo(message).tags == ["first"])

        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.map(\.action) == [.reconfigured], "\(report.text)")
        #expect(try await host.locator.tryService(key: RemoteKeys.echo).echo(message).tags == ["second"])
    }
}
