import Foundation
import TestSupport
import Testing

/// `--own-process FILE`: the operator places a plugin in a process of its own from the command
/// line. The echo fixture is served by a child `host __serve-plugin`, its user stays in the host;
/// `check` and `list` say which process each plugin and slot lives in, in text and in JSON.
extension HostCommandTests {
    /// The echo fixture's file name, as `--own-process` takes it.
    private var echoFile: String { URL(fileURLWithPath: plugin("FixtureEchoPlugin")).lastPathComponent }

    /// The echo fixture and its user, with `--own-process` for the echo's file (and `more` after).
    private func echoArguments(_ command: String, _ more: [String] = []) -> [String] {
        [command, "--own-process", echoFile] + ["FixtureEchoPlugin", "FixtureEchoUserPlugin"].flatMap { ["--plugins", plugin($0)] }
            + more
    }

    @Test func checkAndListSayWhichPluginRunsInAProcessOfItsOwn() async throws {
        let check = try await host(echoArguments("check"))
        #expect(check.status == 0, "\(check.errors)")
        let lines = check.output.split(separator: "\n")
        let echo = try #require(lines.first { $0.hasPrefix("loaded fixture-echo 1.0.0") }, "\(check.output)")
        #expect(echo.contains("; in a process of its own, \(echoFile)#"), "\(echo)")
        let user = try #require(lines.first { $0.hasPrefix("loaded fixture-echo-user") }, "\(check.output)")
        #expect(!user.contains("process"), "\(user)")

        let checkJSON = try await host(echoArguments("check", ["--json"]))
        #expect(checkJSON.status == 0, "\(checkJSON.errors)")
        let plugins = try #require(try Self.object(checkJSON.output)["plugins"] as? [[String: Any]])
        let served = plugins.compactMap { entry in (entry["name"] as? String).map { ($0, entry["servedBy"] as? String) } }
        #expect(served.first { $0.0 == "fixture-echo" }?.1?.hasPrefix("\(echoFile)#") == true, "\(checkJSON.output)")
        #expect(served.contains { $0.0 == "fixture-echo-user" && $0.1 == nil }, "\(checkJSON.output)")

        let list = try await host(echoArguments("list"))
        #expect(list.status == 0, "\(list.errors)")
        let rows = list.output.split(separator: "\n")
        // The last two columns: the plugin, and the process its service lives in.
        let cells = rows.map { $0.split(separator: " ").suffix(2).map(String.init) }
        #expect(cells.first == ["PLUGIN", "PROCESS"], "\(list.output)")
        let echoRow = try #require(cells.first { $0.first == "fixture-echo" }, "\(list.output)")
        #expect(echoRow.last?.hasPrefix("\(echoFile)#") == true, "\(echoRow)")
        #expect(cells.first { $0.first == "fixture-echo-user" }?.last == "host", "\(list.output)")

        let listJSON = try await host(echoArguments("list", ["--json"]))
        #expect(listJSON.status == 0, "\(listJSON.errors)")
        let slots = try #require(try Self.object(listJSON.output)["slots"] as? [[String: Any]])
        let echoSlot = try #require(slots.first { $0["key"] as? String == "fixture.echo" })
        #expect((echoSlot["servedBy"] as? String)?.hasPrefix("\(echoFile)#") == true, "\(listJSON.output)")
        // In the host's process: null, as every absent field of a slot.
        #expect(slots.first { $0["key"] as? String == "fixture.echo-user.answer" }?["servedBy"] is NSNull, "\(listJSON.output)")
    }

    /// `run` starts the plugins: the user's start hook calls the echo service through a proxy, and
    /// another process answers it.
    @Test func runServesADistributedPluginFromItsOwnProcess() async throws {
        // Under a sanitizer its shadow memory counts against the memory limit: the child could not start.
        let memory = underSanitizer ? [] : ["--memory-limit", "4096"]
        let run = try await host(echoArguments("run", ["--heartbeat", "0", "--restarts", "1", "--call-timeout", "60",
                                                       "--cpu-limit", "600", "--open-files", "256"] + memory))
        #expect(run.status == 0, "\(run.errors)")
        // The last table is the services gotten (the slots' comes first).
        let got = try #require(run.output.split(separator: "\n").last { $0.hasPrefix("fixture.echo-user.answer ") }, "\(run.output)")
        #expect(got.contains("hello 42 a,b from pid "), "\(got)")
        #expect(got.hasSuffix("by FixtureRemoteContracts.$Echo<PluginActors.PluginActorSystem>"), "\(got)")
        #expect(run.output.contains("stopped fixture-echo\n"), "\(run.output)")
    }

    /// `serve --own-process`: the plugin's process, killed while the host serves, is told on stderr
    /// (how it ended) and restarted; the host serves on, and stops cleanly on SIGTERM.
    @Test func serveTellsOfAKilledPluginProcessOnStderrAndRestartsIt() async throws {
        let child = try Child(echoArguments("serve", ["--heartbeat", "0"]))
        let serving = try await poll(atMost: .seconds(60)) { child.output.contains("serving 2 plugin(s)") }
        try #require(serving, "stdout: \(child.output)\nstderr: \(child.errors)")
        let host = child.process.processIdentifier
        let first = try #require(Self.children(of: host).first, "no plugin process under the host")
        #expect(kill(first, SIGKILL) == 0)
        let restarted = try await poll(atMost: .seconds(60)) { child.errors.contains("\(echoFile)#1 restarted") }
        #expect(restarted, "\(child.errors)")
        #expect(child.errors.contains("plugin process \(echoFile)#1 was killed by signal 9 (SIGKILL); restarting"), "\(child.errors)")
        #expect(Self.children(of: host).contains { $0 != first }, "no new plugin process")
        #expect(kill(host, SIGTERM) == 0)
        let exited = try await poll(atMost: .seconds(60)) { !child.process.isRunning }
        try #require(exited, "still serving after SIGTERM: \(child.output)")
        #expect(child.process.terminationReason == .exit && child.process.terminationStatus == 0, "\(child.errors)")
        #expect(child.output.contains("stopped fixture-echo\n"), "\(child.output)")
    }

    /// `serve --restarts 0`: the plugin's process, killed while the host serves, is withdrawn at once,
    /// and with it the plugin that requires it: both told on stderr as a reload tells a withdrawal;
    /// no plugin process is left, and the host serves on and stops cleanly on SIGTERM.
    @Test func serveTellsOfAPluginWithdrawnPastItsRestartsOnStderr() async throws {
        let child = try Child(echoArguments("serve", ["--heartbeat", "0", "--restarts", "0"]))
        let serving = try await poll(atMost: .seconds(60)) { child.output.contains("serving 2 plugin(s)") }
        try #require(serving, "stdout: \(child.output)\nstderr: \(child.errors)")
        let host = child.process.processIdentifier
        let first = try #require(Self.children(of: host).first, "no plugin process under the host")
        #expect(kill(first, SIGKILL) == 0)
        let withdrawn = try await poll(atMost: .seconds(60)) {
            child.errors.contains("withdrawn fixture-echo 1.0.0") && child.errors.contains("withdrawn fixture-echo-user 1.0.0")
        }
        #expect(withdrawn, "\(child.errors)")
        #expect(child.errors.contains("plugin process \(echoFile)#1 was killed by signal 9 (SIGKILL); withdrawn: "), "\(child.errors)")
        #expect(child.errors.contains("requires key 'fixture.echo'"), "\(child.errors)")
        #expect(Self.children(of: host).isEmpty, "a plugin process is left: \(Self.children(of: host))")
        #expect(kill(host, SIGTERM) == 0)
        let exited = try await poll(atMost: .seconds(60)) { !child.process.isRunning }
        try #require(exited, "still serving after SIGTERM: \(child.output)")
        #expect(child.process.terminationReason == .exit && child.process.terminationStatus == 0, "\(child.errors)")
    }

    /// `serve --standby on`: the plugin's process has a second one beside it, started ahead; a kill of
    /// either leaves the host serving, and the shutdown leaves neither.
    @Test func serveWithAStandbyKeepsASecondProcessAndLeavesNoneAfterItsShutdown() async throws {
        let child = try Child(echoArguments("serve", ["--heartbeat", "0", "--standby", "on"]))
        let serving = try await poll(atMost: .seconds(60)) { child.output.contains("serving 2 plugin(s)") }
        try #require(serving, "stdout: \(child.output)\nstderr: \(child.errors)")
        let host = child.process.processIdentifier
        let two = try await poll(atMost: .seconds(60)) { Self.children(of: host).count == 2 }
        #expect(two, "children: \(Self.children(of: host))")
        for pid in Self.children(of: host) { kill(pid, SIGKILL) }
        // The serving one's end is told and it is restarted (from a new process: the standby was killed too).
        let restarted = try await poll(atMost: .seconds(60)) { child.errors.contains("\(echoFile)#1 restarted") }
        #expect(restarted, "\(child.errors)")
        #expect(kill(host, SIGTERM) == 0)
        let exited = try await poll(atMost: .seconds(60)) { !child.process.isRunning }
        try #require(exited, "still serving after SIGTERM: \(child.output)")
        #expect(child.process.terminationStatus == 0, "\(child.errors)")
        #expect(Self.children(of: host).isEmpty, "a plugin process is left: \(Self.children(of: host))")
    }

    /// The processes whose parent is `parent` (from /proc: each one's stat names its parent).
    private static func children(of parent: Int32) -> [Int32] {
        PluginProcessTable.pluginProcesses(of: parent)
    }

    /// `serve --config` with no `--own-process`: the settings file's `placement` moves the echo plugin
    /// into a process of its own at a SIGHUP, and back at the next; its user, which requires it, is
    /// restarted with it each time; the process ends once the plugin is back.
    @Test func serveMovesAPluginIntoItsOwnProcessAndBackOnSIGHUP() async throws {
        let settings = try TemporaryFolder()
        @discardableResult
        func place(_ placement: String) throws -> String {
            try settings.write("settings.json", Array(#"{"placement": {"\#(echoFile)": "\#(placement)"}}"#.utf8))
        }
        let file = try place("in-process")
        let child = try Child(["serve", "--heartbeat", "0", "--config", file]
                              + ["FixtureEchoPlugin", "FixtureEchoUserPlugin"].flatMap { ["--plugins", plugin($0)] })
        let serving = try await poll(atMost: .seconds(60)) { child.output.contains("serving 2 plugin(s)") || !child.process.isRunning }
        try #require(serving && child.process.isRunning, "stdout: \(child.output)\nstderr: \(child.errors)")
        let host = child.process.processIdentifier
        #expect(Self.children(of: host).isEmpty)
        let echo = URL(fileURLWithPath: plugin("FixtureEchoPlugin")).resolvingSymlinksInPath().path

        try place("own-process")
        #expect(kill(host, SIGHUP) == 0)
        try await expectOutput(child, "moved fixture-echo 1.0.0 (\(echo)): in process -> own process\nrestarted fixture-echo-user")
        #expect(Self.children(of: host).count == 1)

        try place("in-process")
        #expect(kill(host, SIGHUP) == 0)
        try await expectOutput(child, "moved fixture-echo 1.0.0 (\(echo)): own process -> in process;"
                               + " out of its sandbox, it runs with the host's rights\nrestarted fixture-echo-user")
        #expect(try await poll(atMost: .seconds(30)) { Self.children(of: host).isEmpty }, "\(Self.children(of: host))")
        try await expectExitZero(child, after: SIGTERM)
    }

    /// A plugin whose contract is a plain protocol cannot cross a process: refused at load, naming its key.
    @Test func aPlainContractPluginNamedByOwnProcessIsRefusedNamingItsKey() async throws {
        let clock = plugin("ClockPlugin")
        let run = try await host(["check", "--own-process", clock, "--plugins", clock])
        #expect(run.status == 1, "\(run.output)")
        let refusal = try #require(run.errorLines.first { $0.contains("whose contract is not distributed") }, "\(run.errors)")
        #expect(refusal.contains("sample.clock"), "\(refusal)")
        #expect(run.output.contains("0 loaded, 1 problem(s)"), "\(run.output)")
    }

    /// Each bad value is a usage error naming its option; so is a setting of the processes without
    /// `--own-process`, and the options on a command that loads no plugins.
    @Test(arguments: [
        (["check", "--own-process"], "--own-process needs a FILE"),
        (["check", "--own-process", "no/such/libNone.so"], "--own-process no/such/libNone.so: no such file"),
        (["check", "--own-process", "/tmp/"], "--own-process /tmp/ is a folder"),
        (["check", "--own-process", "*", "--memory-limit", "0"], "--memory-limit needs a whole number of megabytes"),
        (["check", "--own-process", "*", "--cpu-limit", "1.5"], "--cpu-limit needs a whole number of seconds"),
        (["check", "--own-process", "*", "--open-files", "3"], "--open-files needs a whole number of descriptors from 16"),
        (["check", "--own-process", "*", "--thread-limit", "8"], "--thread-limit needs a whole number of threads from 16"),
        (["serve", "--thread-limit", "64"], "--thread-limit sets how plugins in a process of their own run"),
        (["check", "--own-process", "*", "--call-timeout", "0"], "--call-timeout needs a number of seconds"),
        (["check", "--own-process", "*", "--heartbeat", "-1"], "--heartbeat needs a number of seconds from 0.01 to 86400, or 0"),
        (["check", "--own-process", "*", "--restarts", "many"], "--restarts needs a whole number of restarts from 0 to 1000"),
        (["serve", "--heartbeat", "1"], "--heartbeat sets how plugins in a process of their own run"),
        (["check", "--own-process", "*", "--standby", "yes"], "--standby needs on (a process started ahead takes over at a restart) or off"),
        (["inspect", "x.so", "--own-process", "*"], "--own-process is not an option of inspect"),
    ] as [([String], String)])
    func ownProcessUsageErrorsNameTheOption(_ arguments: [String], _ message: String) async throws {
        let run = try await host(arguments)
        #expect(run.status == 2, "\(arguments): \(run.output)")
        #expect(run.errors.contains(message), "\(arguments): \(run.errors)")
        #expect(run.errors.contains("for how it goes"), "\(run.errors)")
    }

    /// JSON text as an object.
    private static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }
}
