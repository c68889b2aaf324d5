import Configuration
import Foundation
import HostKit
import PluginAPI
import PluginHostConfiguration
import Testing

/// `SwiftConfigurationPluginSettings`: each plugin's settings under `plugins.NAME` of a
/// swift-configuration reader (the environment over a JSON file), read by a real plugin; no plugin
/// reads another's; a reload reads the file again and starts again a plugin whose settings changed.
@Suite struct ConfigurationTests {
    static let said = ServiceLocatorEasyKey<String>(name: "fixture.settings.said")

    /// The environment the tests give the reader (a real process's would be read as it is).
    static let environment = ["PLUGINS_FIXTURESETTINGS_GREETING": "from env", "PLUGINS_FIXTURESETTINGS_TOKEN": "hunter2",
                              "PLUGINS_FIXTURE_LOGGER_TOKEN": "theirs", "PLUGINS_A_B_X": "a-b's"]

    /// A JSON file of `times` in a new folder, and settings read from the environment over it.
    static func settings(times: Int) throws -> (file: String, settings: () async throws -> SwiftConfigurationPluginSettings) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("configuration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("config.json").path
        try write(times: times, to: file)
        return (file, {
            try await SwiftConfigurationPluginSettings {
                ConfigReader(providers: [
                    EnvironmentVariablesProvider(environmentVariables: environment),
                    try await FileProvider<JSONSnapshot>(filePath: .init(file)),
                ])
            }
        })
    }

    static func write(times: Int, to file: String) throws {
        let json = "{\"plugins\": {\"fixturesettings\": {\"greeting\": \"from file\", \"times\": \(times), \"loud\": true, \"ratio\": 0.25}}}"
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
    }

    @Test func aPluginReadsItsOwnSettingsFromTheEnvironmentOverAFile() async throws {
        let (_, make) = try Self.settings(times: 4)
        let host = PluginHost(settings: try await make())
        defer { host.shutdown() }
        let report = await onAThreadOfItsOwn { host.load([Samples.file("FixtureSettings")]) }
        #expect(report.problems.isEmpty, "\(report.text)")
        #expect(try host.locator.tryService(key: Self.said)
                == "greeting=from env times=4 loud=true ratio=0.25 token=<secret> tokenLength=7 other=none")
    }

    /// A name environment variables cannot keep apart from another's reads nothing, saying why: a
    /// plugin `a` reading `b.x` and a plugin `a-b` reading `x` would both read `PLUGINS_A_B_X`.
    @Test func noPluginReadsAnothersSettings() async throws {
        let (_, make) = try Self.settings(times: 4)
        let settings = try await make()
        #expect(try settings.value(forKey: "greeting", of: "fixturesettings") == "from env")
        for name in ["fixture-logger", "a-b", "a.b", "a_b", "Fixturesettings", ""] {
            #expect(throws: SwiftConfigurationPluginSettings.Refusal.self, "\(name)") {
                try settings.value(forKey: "x", of: name)
            }
        }
        #expect(try settings.value(forKey: "b.x", of: "a") == "a-b's", "a plain name reads under its own prefix")
        #expect(throws: SwiftConfigurationPluginSettings.Refusal.self) { try settings.value(forKey: "a..x", of: "a") }
        #expect(try settings.value(forKey: "times", of: "fixturesettings") == "4")
        // swift-configuration reads a JSON `true` as the number 1 too; read as a Bool, "1" is true.
        #expect(try settings.value(forKey: "loud", of: "fixturesettings") == "1")
        #expect(try settings.value(forKey: "ratio", of: "fixturesettings") == "0.25")
        #expect(try settings.value(forKey: "none", of: "fixturesettings") == nil)
    }

    /// The file edited, a reload makes the reader again: the plugin that read `times` starts again with it.
    @Test func aReloadReadsTheFileAgainAndStartsAgainAPluginWhoseSettingChanged() async throws {
        let (file, make) = try Self.settings(times: 4)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("configuration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(Samples.directory)/libFixtureSettings.so",
                                         toPath: folder.appendingPathComponent("libFixtureSettings.so").path)
        let host = PluginHost(settings: try await make()) { _ in }
        defer { host.shutdown() }
        #expect(await onAThreadOfItsOwn { host.load([.directory(folder.path)]) }.problems.isEmpty)
        try Self.write(times: 5, to: file)
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.map(\.action) == [.reconfigured] && report.entries.first?.settingsChanged == ["times"],
                "\(report.text)")
        #expect(try host.locator.tryService(key: Self.said).contains(" times=5 "))
    }
}

/// Runs `body` on a new thread and resumes with its result: a load blocks its thread, and the
/// reader is made on Swift concurrency's threads meanwhile.
func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
