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

        init() async throws {
            program = try WrappedChildProgram(behaviour: "")
            var settings = OwnProcessTests.processes()
            settings.executable = program.path
            settings.standby = true
            (host, reported) = try OwnProcessTests.host(settings)
            echo = try host.locator.tryService(key: RemoteKeys.echo)
            serving = try await echo.pid()
            standby = try #require(try await OwnProcessStandbyTests.standby(of: program, besides: [serving]))
        }

        func end() {
            host.shutdown()
            program.killLeftovers()
        }
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

    /// Without the setting, no process is started ahead.
    @Test func withoutTheSettingNoStandbyIsStarted() async throws {
        let program = try WrappedChildProgram(behaviour: "")
        defer { program.killLeftovers() }
        var settings = OwnProcessTests.processes()
        settings.executable = program.path
        let (host, _) = try OwnProcessTests.host(settings)
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        _ = try await echo.pid()
        _ = try? await echo.crash()
        _ = try await echo.pid()
        #expect(program.runs.count == 2, "runs: \(program.runs)")
    }
}
