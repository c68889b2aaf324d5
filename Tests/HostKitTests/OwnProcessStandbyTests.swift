import FixtureRemoteContracts
import Foundation
import Glibc
import HostKit
@_spi(HostKit) import PluginAPI
import PluginActors
import TestSupport
import Testing

/// A plugin's standby process (``PluginProcesses/standby``): started ahead once its plugin serves,
/// it takes over when the serving process ends, and never outlives the host.
@Suite struct OwnProcessStandbyTests {
    /// The runs of `program` other than `serving` once there is one, the standby; nil if none came.
    static func standby(of program: WrappedChildProgram, besides serving: Set<Int32>) async throws -> Int32? {
        try await waitFor(atMost: .seconds(60), { program.running.contains { !serving.contains($0) } },
                          orSay: "no standby started; runs: \(program.runs)")
        return program.running.first { !serving.contains($0) }
    }

    /// A host whose echo plugin serves from one process, and the standby started beside it.
    struct Scene {
        let program: WrappedChildProgram
        let host: PluginHost
        let reported: Collected<[String]>
        let echo: any Echo
        let serving: Int32
        let standby: Int32

        /// `behaviour`: what each run of the plugin's program does first (``WrappedChildProgram``);
        /// `callTimeout`: the host's calls' (its question to a standby among them).
        init(behaviour: String = "", callTimeout: Duration = .seconds(60)) async throws {
            (program, host, reported) = try OwnProcessStandbyTests.hostWithAStandby(behaviour: behaviour, callTimeout: callTimeout)
            echo = try host.locator.tryService(key: RemoteKeys.echo)
            serving = try await echo.pid()
            standby = try #require(try await OwnProcessStandbyTests.standby(of: program, besides: [serving]))
        }

        func end() {
            host.shutdown()
            program.killLeftovers()
        }
    }

    /// A host whose echo plugin serves from a process of its own with a standby, each process a run of
    /// a program that does `behaviour` first; the lines the host reported.
    static func hostWithAStandby(behaviour: String, callTimeout: Duration = .seconds(60)) throws
        -> (WrappedChildProgram, PluginHost, Collected<[String]>) {
        let program = try WrappedChildProgram(behaviour: behaviour)
        var settings = OwnProcessTests.processes(callTimeout: callTimeout)
        program.install(in: &settings)
        // Each child a run of the program, as the behaviour counts them: none forked from a zygote.
        settings.zygote = false
        settings.standby = true
        let (host, reported) = try OwnProcessTests.host(settings)
        return (program, host, reported)
    }

    @Test func theStandbyServesOnceTheServingProcessEndsAndANewStandbyIsStarted() async throws {
        let scene = try await Scene()
        defer { scene.end() }
        _ = try? await scene.echo.crash()
        // The next call waits for the restart, and is answered by the process started ahead.
        #expect(try await scene.echo.pid() == scene.standby, "reported: \(scene.reported.withLock { $0 })")
        // And once it serves, the next standby is started.
        let next = try #require(try await Self.standby(of: scene.program, besides: [scene.serving, scene.standby]))
        #expect(next != scene.standby)
        scene.host.shutdown()
        try await waitFor(atMost: .seconds(60), { scene.program.running.isEmpty }, orSay: "left running: \(scene.program.running)")
        #expect(scene.program.runs.count == 3, "runs: \(scene.program.runs)")
    }

    /// A standby has its plugin loaded ahead (opened and checked in its sandbox, its constructors run;
    /// not registered nor started): the takeover skips that step, and the plugin serves from it.
    @Test func theStandbyHasItsPluginLoadedBeforeItTakesOver() async throws {
        let scene = try await Scene()
        defer { scene.end() }
        // Read to its end: a file of /proc says it is empty, and a read of its size gets a page.
        let maps = { String(decoding: FileHandle(forReadingAtPath: "/proc/\(scene.standby)/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self) }
        #expect(try await poll(atMost: .seconds(60)) { maps().contains("libFixtureEchoPlugin.so") },
                "the standby has not mapped its plugin: \(maps().split(separator: "\n").filter { $0.contains(".so") }.count) libraries")
        _ = try? await scene.echo.crash()
        #expect(try await scene.echo.pid() == scene.standby, "reported: \(scene.reported.withLock { $0 })")
        #expect(try await scene.echo.echo(EchoMessage(text: "after", number: 2, tags: [])).text == "after")
    }

    /// A process started for a load gets its load request as it starts, as a standby does, and serves
    /// its plugin. That a process given a request loads it ahead (before the host asks) is the
    /// standby's test, `theStandbyHasItsPluginLoadedBeforeItTakesOver`: the same code in the child.
    @Test func aProcessStartedForALoadLoadsAheadToo() async throws {
        let program = try WrappedChildProgram(behaviour: #"env > "$(dirname "$0")/environment.$n""#)
        defer { program.killLeftovers() }
        var settings = OwnProcessTests.processes()
        program.install(in: &settings)
        settings.zygote = false
        let (host, reported) = try OwnProcessTests.host(settings)
        defer { host.shutdown() }
        let environment = try String(contentsOfFile: program.folder + "/environment.1", encoding: .utf8)
        let request = try #require(environment.split(separator: "\n").first { $0.hasPrefix("SWIFT_PLUGIN_PRELOAD=") },
                                   "no load request in the environment of the process started for the load")
        #expect(request.contains("libFixtureEchoPlugin.so"))
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        #expect(try await echo.echo(EchoMessage(text: "ahead", number: 1, tags: [])).text == "ahead", "\(reported.withLock { $0 })")
        #expect(program.runs.count == 1, "runs: \(program.runs)")
    }

    /// With an operator's digest list, a standby loads nothing ahead: the list in force when it takes
    /// over decides, as it does for a process started then. The plugin's line taken out of the list,
    /// the standby refuses the plugin at the restart, and a call finds no process to answer it.
    @Test func withADigestListTheListInForceAtTheTakeoverDecides() async throws {
        let folder = try TemporaryFolder()
        try folder.install("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        // A name of its own: the children of other tests that run meanwhile serve the echo plugin too.
        let name = "libEcho\(UInt32.random(in: 0...UInt32.max)).so"
        let echo = try folder.install("FixtureEchoPlugin", as: name)
        let listed = try FileCheckTests.sha256sum([name, "libFixtureRemoteContracts.so"], inFolder: folder.path)
        let list = try folder.write("SHA256SUMS", Array(listed.utf8))
        var settings = OwnProcessTests.processes()
        // `host __serve-plugin` takes the list as the host does (plugin-process has no options), and
        // reads it unconfined (the sandbox would need it readable).
        settings.executable = BuiltPlugins.directory + "/host"
        settings.arguments = ["__serve-plugin", "--digests", list]
        settings.sandbox.isEnabled = false
        settings.standby = true
        settings.files = [name]
        let reported = Collected<[String]>([])
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: try DigestAllowlist(contentsOf: list)), processes: settings) { line in
            reported.withLock { $0.append(line) }
        }
        defer { host.shutdown() }
        let report = await onAThreadOfItsOwn { host.load([.file(echo)]) }
        #expect(report.problems.isEmpty, "\(report.text)")
        let proxy = try host.locator.tryService(key: RemoteKeys.echo)
        let serving = try await proxy.pid()
        let mark = "plugin \(name)"
        try await waitFor(atMost: .seconds(60), { Self.children(named: mark).contains { $0 != serving } }, orSay: "no standby")
        // With the plugin listed, the standby takes over and serves.
        let standby = try #require(Self.children(named: mark).first { $0 != serving })
        _ = try? await proxy.crash()
        #expect(try await proxy.pid() == standby)
        try await waitFor(atMost: .seconds(60), { Self.children(named: mark).contains { ![serving, standby].contains($0) } },
                          orSay: "no next standby")

        // It loads nothing ahead: a standby that does maps its plugin within a moment
        // (theStandbyHasItsPluginLoadedBeforeItTakesOver); this one must not in five seconds.
        let next = try #require(Self.children(named: mark).first { ![serving, standby].contains($0) })
        let mapsPlugin = { String(decoding: FileHandle(forReadingAtPath: "/proc/\(next)/maps")?.readDataToEndOfFile() ?? Data(),
                                  as: UTF8.self).contains(name) }
        #expect(try await !poll(atMost: .seconds(5)) { mapsPlugin() }, "the standby loaded its plugin ahead of the list in force")
        _ = try folder.write("SHA256SUMS", Array(listed.split(separator: "\n").filter { !$0.contains(name) }
            .joined(separator: "\n").utf8) + [10])
        _ = try? await proxy.crash()
        if let answered = try? await PluginActorSystem.withCallTimeout(.seconds(10), { try await proxy.pid() }) {
            Issue.record("process \(answered) served a plugin the list in force does not name")
        }
        #expect(reported.withLock { $0 }.contains { $0.contains("refused by the host's file check: it is not in the digest list") },
                "\(reported.withLock { $0 })")
    }

    /// The plugin processes of this process (its children, or its zygote's) whose command line holds `name`.
    static func children(named name: String) -> [Int32] {
        PluginProcessTable.pluginProcesses(of: getpid()).filter { pid in
            guard let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: command, as: UTF8.self).contains(name)
        }
    }

    /// A standby that ended before it was needed (killed, say) is not taken: the restart starts a
    /// process of its own, and serves.
    @Test func aStandbyThatEndedIsNotTakenAndTheRestartStartsAProcess() async throws {
        let scene = try await Scene()
        defer { scene.end() }
        kill(scene.standby, SIGKILL)
        try await waitFor(atMost: .seconds(60), { !isRunning(scene.standby) })
        _ = try? await scene.echo.crash()
        let restarted = try await scene.echo.pid()
        #expect(![scene.serving, scene.standby].contains(restarted), "reported: \(scene.reported.withLock { $0 })")
        #expect(scene.program.runs.contains(restarted))
    }

    /// A standby is connected and its load's answer checked as it is made, not when a restart needs
    /// it: one that did not enter its sandbox is ended and reported then, and the restart starts a
    /// process of its own, which serves (taken, it would have failed the restart).
    @Test func aStandbyThatIsNotConfinedIsRefusedBeforeARestartNeedsIt() async throws {
        // The second run, the standby, is started without the variable that asks for the sandbox.
        let (program, host, reported) = try Self.hostWithAStandby(behaviour: #"if [ "$n" -eq 2 ]; then unset SWIFT_PLUGIN_SANDBOX; fi"#)
        defer { program.killLeftovers() }
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let serving = try await echo.pid()
        let refusal = { reported.withLock { $0 }.first { $0.contains("has no standby") } }
        try await waitFor(atMost: .seconds(60), { refusal() != nil }, orSay: "no standby refused; reported: \(reported.withLock { $0 })")
        #expect(refusal()?.contains("its process is not confined: its program did not enter the sandbox") == true, "\(refusal() ?? "")")
        try await waitFor(atMost: .seconds(60), { program.runs.count == 2 && program.running == [serving] },
                          orSay: "the refused standby was not ended: runs \(program.runs), running \(program.running)")
        let refused = try #require(program.runs.first { $0 != serving })
        _ = try? await echo.crash()
        let restarted = try await echo.pid()
        #expect(![serving, refused].contains(restarted) && program.runs.contains(restarted), "runs: \(program.runs)")
        #expect(!reported.withLock { $0 }.contains { $0.contains("was not restarted") }, "\(reported.withLock { $0 })")
    }

    /// A standby still being made when its plugin stops (here: its program waits before it serves,
    /// so the host's question of its load done ahead waits) ends with the plugin, at once.
    @Test func aStandbyBeingPreparedEndsWithItsPlugin() async throws {
        // The host's question waits an hour: a standby that never answers is not ended by its timeout
        // (a busy machine may run this test's checks a minute late).
        let scene = try await Scene(behaviour: #"if [ "$n" -eq 2 ]; then while :; do sleep 1; done; fi"#, callTimeout: .seconds(3600))
        defer { scene.end() }
        scene.host.shutdown()
        // Bounds a hang: before, it lived on until the question timed out (a minute here).
        try await waitFor(atMost: .seconds(20), { !isRunning(scene.standby) },
                          orSay: "the standby outlived its plugin: running \(scene.program.running)")
    }

    /// Without the setting, no process is started ahead.
    @Test func withoutTheSettingNoStandbyIsStarted() async throws {
        let program = try WrappedChildProgram(behaviour: "")
        defer { program.killLeftovers() }
        var settings = OwnProcessTests.processes()
        program.install(in: &settings)
        // Each child a run of the program, as the behaviour counts them: none forked from a zygote.
        settings.zygote = false
        let (host, _) = try OwnProcessTests.host(settings)
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        _ = try await echo.pid()
        _ = try? await echo.crash()
        _ = try await echo.pid()
        #expect(program.runs.count == 2, "runs: \(program.runs)")
    }
}
