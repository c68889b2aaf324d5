import Foundation
import HostKit
import Synchronization
import PluginAPI
import TestSupport
import Testing

/// Each plugin's own settings (`services.settings`), filled from the operator's configuration
/// (`PluginSettingsFile`) scoped to the plugin's name: a real plugin that reads them while it
/// registers, and reloads that find a value it read changed.
@Suite struct PluginSettingsTests {
    static let said = ServiceLocatorEasyKey<String>(name: "fixture.settings.said")

    /// A settings file in `folder` holding `plugins`' settings.
    @discardableResult
    static func settingsFile(in folder: TemporaryFolder, _ plugins: [String: Any], name: String = "settings.json") throws -> String {
        let data = try JSONSerialization.data(withJSONObject: ["plugins": plugins], options: [.sortedKeys])
        return try folder.write(name, Array(data))
    }

    @Test func aPluginReadsItsOwnSettingsTypedAndNoOtherPluginsOnes() throws {
        let folder = try TemporaryFolder()
        let file = try Self.settingsFile(in: folder, [
            "fixturesettings": ["greeting": "hi", "times": 3, "loud": true, "ratio": 0.25, "token": "s3cr3t"],
            // The key the plugin reads as "fixture-logger.token" would be this one, were scopes joined by dots.
            "fixture-logger": ["token": "theirs"],
        ])
        let host = PluginHost(settings: try PluginSettingsFile(contentsOf: file))
        defer { host.shutdown() }
        let report = host.load([.file(BuiltPlugins.path("FixtureSettings"))])
        #expect(report.problems.isEmpty, "\(report.text)")
        #expect(try host.locator.tryService(key: Self.said)
                == "greeting=hi times=3 loud=true ratio=0.25 token=<secret> tokenLength=6 other=none")
    }

    @Test func withoutSettingsEveryReadIsItsDefault() throws {
        let host = PluginHost()
        defer { host.shutdown() }
        #expect(host.load([.file(BuiltPlugins.path("FixtureSettings"))]).problems.isEmpty)
        #expect(try host.locator.tryService(key: Self.said)
                == "greeting=hello times=1 loud=false ratio=0.5 token=none tokenLength=0 other=none")
        #expect(try host.locator.settings.string(forKey: "greeting") == nil)
    }

    /// `times` set to text: the plugin's read throws, its registration fails all or nothing, and the
    /// error names the plugin and the key, not the value.
    @Test func aValueOfAnotherTypeIsANamedErrorAndNothingIsRegistered() throws {
        let folder = try TemporaryFolder()
        let file = try Self.settingsFile(in: folder, ["fixturesettings": ["times": "three-ish"]])
        let host = PluginHost(settings: try PluginSettingsFile(contentsOf: file))
        defer { host.shutdown() }
        let report = host.load([.file(BuiltPlugins.path("FixtureSettings"))])
        let error = try #require(report.problems.first)
        #expect(error.description.contains("plugin 'fixturesettings' setting 'times': its value is not a whole number"),
                "\(error)")
        #expect(!error.description.contains("three-ish"))
        #expect(host.locator.slotInfo(forKey: Self.said.storeKey) == nil)
    }

    /// The plugin read `greeting`: changed, a reload registers and starts it again from its file with
    /// the new value (`reconfigured`, naming the key); a key it never read, or no change, does nothing.
    @Test func aReloadStartsAgainAPluginWhoseSettingChanged() throws {
        let folder = try TemporaryFolder()
        let plugins = try TemporaryFolder()
        try plugins.copy("FixtureSettings", as: "libFixtureSettings.so")
        let file = try Self.settingsFile(in: folder, ["fixturesettings": ["greeting": "hi", "token": "one"]])
        let host = PluginHost(settings: try PluginSettingsFile(contentsOf: file)) { _ in }
        defer { host.shutdown() }
        #expect(host.load([.directory(plugins.path)]).problems.isEmpty)
        #expect(try host.locator.tryService(key: Self.said).hasPrefix("greeting=hi "))

        try Self.settingsFile(in: folder, ["fixturesettings": ["greeting": "hi", "token": "one", "unread": 1]])
        var report = host.reload()
        #expect(report.entries.isEmpty && report.unchanged == 1, "\(report.text)")

        try Self.settingsFile(in: folder, ["fixturesettings": ["greeting": "good day", "token": "two"]])
        report = host.reload()
        let entry = try #require(report.entries.first)
        #expect(report.entries.count == 1 && entry.action == .reconfigured && entry.settingsChanged == ["greeting", "token"],
                "\(report.text)")
        #expect(entry.summary.hasSuffix("; settings changed: greeting, token"), "\(entry.summary)")
        #expect(!report.text.contains("two") && !report.json.contains("good day"), "\(report.text)")
        #expect(try host.locator.tryService(key: Self.said).hasPrefix("greeting=good day "))

        report = host.reload()
        #expect(report.entries.isEmpty && report.unchanged == 1, "\(report.text)")
    }

    /// A new value the plugin cannot take: its new instance fails to register, and the old one serves
    /// on (`kept`, saying why); fixed, the next reload brings it in.
    @Test func aChangedSettingThatFailsKeepsTheInstanceServing() throws {
        let folder = try TemporaryFolder()
        let plugins = try TemporaryFolder()
        try plugins.copy("FixtureSettings", as: "libFixtureSettings.so")
        let file = try Self.settingsFile(in: folder, ["fixturesettings": ["times": 2]])
        let host = PluginHost(settings: try PluginSettingsFile(contentsOf: file)) { _ in }
        defer { host.shutdown() }
        #expect(host.load([.directory(plugins.path)]).problems.isEmpty)

        try Self.settingsFile(in: folder, ["fixturesettings": ["times": "many"]])
        var report = host.reload()
        let kept = try #require(report.entries.first)
        #expect(kept.action == .kept && kept.error?.description.contains("setting 'times'") == true, "\(report.text)")
        #expect(try host.locator.tryService(key: Self.said).contains(" times=2 "))

        try Self.settingsFile(in: folder, ["fixturesettings": ["times": 5]])
        report = host.reload()
        #expect(report.entries.map(\.action) == [.reconfigured], "\(report.text)")
        #expect(try host.locator.tryService(key: Self.said).contains(" times=5 "))
    }

    /// A settings file that cannot be read at a reload (broken JSON, written over by mistake) changes
    /// nothing: the plugins keep what they read, and the report says why.
    @Test func aReloadThatCannotReadTheSettingsChangesNothing() throws {
        let folder = try TemporaryFolder()
        let plugins = try TemporaryFolder()
        try plugins.copy("FixtureSettings", as: "libFixtureSettings.so")
        let file = try Self.settingsFile(in: folder, ["fixturesettings": ["greeting": "hi"]])
        let host = PluginHost(settings: try PluginSettingsFile(contentsOf: file)) { _ in }
        defer { host.shutdown() }
        #expect(host.load([.directory(plugins.path)]).problems.isEmpty)
        try folder.write("settings.json", Array("{\"plugins\": {\"fixturesettings\": {\"greeting\": \"hel".utf8))
        let report = host.reload()
        #expect(report.entries.count == 1 && report.entries.first?.action == .refused, "\(report.text)")
        #expect(report.text.contains("the plugins' settings could not be read again: the settings file \(file) is not JSON"),
                "\(report.text)")
        #expect(!report.text.contains("hel\""), "\(report.text)")
        #expect(try host.locator.tryService(key: Self.said).hasPrefix("greeting=hi "))
    }

    /// A source that, asked at a reload whether a value changed, reads the host's locator (a slow
    /// source would hold every reader the same way): the reload asks it without the host's lock.
    @Test func aReloadAsksTheSourceWithoutHoldingTheHostsLock() async throws {
        final class Watching: PluginSettingsSource {
            let host = Mutex<PluginHost?>(nil)
            let asked = Mutex(0)
            func value(forKey key: String, of plugin: String) throws -> String? {
                // Reads the host's current locator whenever it is asked, as a reader of it would.
                _ = host.withLock { $0 }?.locator.slots
                asked.withLock { $0 += 1 }
                return key == "greeting" ? "hi" : nil
            }
        }
        let source = Watching()
        let plugins = try TemporaryFolder()
        try plugins.copy("FixtureSettings", as: "libFixtureSettings.so")
        let host = PluginHost(settings: source) { _ in }
        #expect(host.load([.directory(plugins.path)]).problems.isEmpty)
        source.host.withLock { $0 = host }
        let report = Mutex<ReloadReport?>(nil)
        Thread { let done = host.reload(); report.withLock { $0 = done } }.start()
        let done = try await poll(atMost: .seconds(60)) { report.withLock { $0 } != nil }
        #expect(done, "the reload hangs: it asked the source while holding the lock the source's read of the locator takes")
        #expect(report.withLock { $0 }?.entries.isEmpty == true && source.asked.withLock { $0 } > 5)
        // A reload that hangs holds the host: its shutdown would wait for it.
        if done { host.shutdown() }
    }

    /// The plugin's read of `fixture-logger.token` fails (an object is there, not a value) and it
    /// goes on without it. The file unchanged, a reload must leave it serving: it is started again
    /// at every reload instead, reported `reconfigured` with "settings changed" though none did.
    @Test func aReloadWithNothingChangedLeavesServingAPluginWhoseReadFailed() throws {
        let folder = try TemporaryFolder()
        let plugins = try TemporaryFolder()
        try plugins.copy("FixtureSettings", as: "libFixtureSettings.so")
        let file = try Self.settingsFile(in: folder, ["fixturesettings": ["greeting": "hi",
                                                                          "fixture-logger": ["token": ["x": 1]]]])
        let host = PluginHost(settings: try PluginSettingsFile(contentsOf: file)) { _ in }
        defer { host.shutdown() }
        #expect(host.load([.directory(plugins.path)]).problems.isEmpty)
        #expect(try host.locator.tryService(key: Self.said).hasPrefix("greeting=hi "))
        for _ in 0..<2 {
            let report = host.reload()
            #expect(report.entries.isEmpty && report.unchanged == 1, "\(report.text)")
        }
    }
}
