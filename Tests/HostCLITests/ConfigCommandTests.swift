import Foundation
import TestSupport
import Testing

/// `--config FILE`: each plugin's own settings from the operator's JSON file, read again at each
/// SIGHUP, which starts again a plugin whose settings changed.
extension HostCommandTests {
    /// `FixtureSettings`'s settings, and a token of another plugin's, written to `settings.json`.
    @discardableResult
    private func writeSettings(in folder: TemporaryFolder, greeting: String) throws -> String {
        let json = """
            {"plugins": {"fixturesettings": {"greeting": "\(greeting)", "times": 2, "token": "hunter2"},
                         "fixture-logger": {"token": "theirs"}}}
            """
        return try folder.write("settings.json", Array(json.utf8))
    }

    @Test func aPluginGetsItsOwnSettingsAndItsSecretNeverPrints() async throws {
        let folder = try TemporaryFolder()
        let file = try writeSettings(in: folder, greeting: "hi")
        let run = try await host(["resolve", "fixture.settings.said", "--plugins", plugin("FixtureSettings"), "--config", file])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("greeting=hi times=2 loud=false ratio=0.5 token=<secret> tokenLength=7 other=none"),
                "\(run.output)")
        #expect(!run.output.contains("hunter2") && !run.errors.contains("hunter2"))
    }

    @Test func aSettingsFileThatCannotBeUsedIsAUsageError() async throws {
        let folder = try TemporaryFolder()
        let missing = try await host(["check", "--plugins", plugin("FixtureSettings"), "--config", folder.file("none")])
        #expect(missing.status == 2)
        #expect(missing.errorLines.first == "host: --config: the settings file \(folder.file("none")) does not exist",
                "\(missing.errors)")
        let broken = try folder.write("broken.json", Array("{\"plugins\": {\"fixturesettings\": \"hunter2\"}}".utf8))
        let refused = try await host(["check", "--plugins", plugin("FixtureSettings"), "--config", broken])
        #expect(refused.status == 2 && !refused.errors.contains("hunter2"), "\(refused.errors)")
        #expect(refused.errors.contains("has 'plugins.fixturesettings', which is not an object of settings"), "\(refused.errors)")
    }

    /// The operator edits the file and sends SIGHUP: the plugin that read the changed key is started
    /// again with it, and says so; the secret never prints.
    @Test func serveStartsAgainAPluginWhoseSettingsChangedOnSIGHUP() async throws {
        let plugins = try TemporaryFolder(), settings = try TemporaryFolder()
        let path = try plugins.install("FixtureSettings", as: "libsettings.so")
        let file = try writeSettings(in: settings, greeting: "hi")
        let child = try Child(["serve", "--plugins", plugins.path, "--config", file])
        let serving = try await poll(atMost: .seconds(30), every: .milliseconds(5)) {
            child.output.contains("serving 1 plugin(s)") || !child.process.isRunning
        }
        try #require(serving && child.process.isRunning, "not serving; stdout: \(child.output)\nstderr: \(child.errors)")
        try writeSettings(in: settings, greeting: "good day")
        #expect(kill(child.process.processIdentifier, SIGHUP) == 0)
        try await expectOutput(child, "reload (signal \(SIGHUP)):\n"
                               + "reconfigured fixturesettings 1.0.0 (\(path)); settings changed: greeting\n")
        try await expectExitZero(child, after: SIGTERM)
        #expect(!child.output.contains("hunter2") && !child.errors.contains("hunter2"))
    }

    /// `--isolated` probes each plugin's registration in a child, so that one that crashes there is
    /// refused, not the end of the host. The probe child reads no settings (its pipeline has no
    /// source): a registration that crashes on the value its setting has is probed with the default,
    /// passes, and then crashes the host itself.
    @Test func anIsolatedCheckSurvivesARegistrationThatCrashesOnItsSetting() async throws {
        let folder = try TemporaryFolder()
        let file = try folder.write("settings.json", Array(#"{"plugins": {"fixturesettingscrash": {"endpoint": "crash"}}}"#.utf8))
        let run = try await host(["check", "--isolated", "--probe-timeout", "30", "--config", file]
            + ["ClockPlugin", "FixtureSettingsCrash"].flatMap { ["--plugins", plugin($0)] })
        #expect(run.status == 1, "status \(run.status): \(run.errors)")
        #expect(run.errors.contains("libFixtureSettingsCrash.so: probe failed: crashed while loading: signal 6"), "\(run.errors)")
        #expect(run.output.contains("1 loaded, 1 problem(s)"), "\(run.output)")
    }

    /// A settings file nested 300 deep (JSONDecoder takes up to 512 levels) read with the stack
    /// `aChainDeeperThanTheStackAllowsIsAnErrorNotACrash` gives the host (`ulimit -s 256`): the host
    /// crashes (SIGSEGV) in SettingsValue's recursive decoding while it reads `--config`; a careless
    /// edit read at a SIGHUP would end a serving host so. It must load, or be refused by name.
    @Test func aDeeplyNestedSettingsFileIsNoCrash() async throws {
        let folder = try TemporaryFolder()
        let depth = 300
        let json = #"{"plugins": {"fixturesettings": "# + String(repeating: #"{"x": "#, count: depth) + "1"
            + String(repeating: "}", count: depth) + "}}"
        let file = try folder.write("settings.json", Array(json.utf8))
        let command = "ulimit -s 256 && exec '\(BuiltPlugins.directory)/host' check --config '\(file)'"
            + " --plugins '\(plugin("FixtureSettings"))'"
        let run = try await host(["-c", command], executable: "/bin/sh")
        #expect(run.status == 0 || run.status == 2, "\(run.status): \(run.errors.prefix(500))")
    }
}
