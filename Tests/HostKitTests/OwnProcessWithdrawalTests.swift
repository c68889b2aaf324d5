import FixtureRemoteContracts
import Foundation
import Glibc
import HostKit
@_spi(HostKit) import PluginAPI
import PluginActors
import SampleContracts
import TestSupport
import Testing

/// A plugin whose process ends more often than its restart policy allows is withdrawn from the host
/// as a reload withdraws a plugin whose file is gone, with the plugins that require it; the host
/// serves on with the others, and a later reload brings them back. FixtureEchoPlugin is served from
/// its own process (its children marked, as OwnProcessReloadTests marks them), FixtureEchoUserPlugin
/// (which requires it) and ClockPlugin (which does not) from this one.
@Suite struct OwnProcessWithdrawalTests {
    /// A host as described, its echo process allowed one restart in ten minutes; the lines it reported.
    static func host(mark: String) throws -> (PluginHost, Collected<[String]>) {
        var settings = OwnProcessTests.processes(restarts: .init(maximum: 1, window: .seconds(600), backoff: .milliseconds(10)))
        settings.environment[OwnProcessReloadTests.markVariable] = mark
        let reported = Collected<[String]>([])
        let host = PluginHost(processes: settings) { line in reported.withLock { $0.append(line) } }
        let report = host.load(["FixtureEchoUserPlugin", "FixtureEchoPlugin", "ClockPlugin"].map { .file(BuiltPlugins.path($0)) })
        #expect(report.problems.isEmpty, "\(report.problems)")
        return (host, reported)
    }

    /// Crashes the echo service's process until it is withdrawn (its one restart used); the ids of
    /// the processes it had.
    static func crashPastItsRestarts(_ echo: any Echo) async throws -> [Int32] {
        let first = try await echo.pid()
        try? await echo.crash()
        var second: Int32?
        var bound = PollBound(.seconds(60), every: .milliseconds(20))
        while second == nil, !bound.passed() {
            second = try? await echo.pid()
            if second == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let restarted = try #require(second, "the echo process was not restarted once")
        try? await echo.crash()
        return [first, restarted]
    }

    @Test func pastItsRestartsAPluginIsWithdrawnWithThePluginsThatRequireIt() async throws {
        let mark = UUID().uuidString
        let (host, reported) = try Self.host(mark: mark)
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let pids = try await Self.crashPastItsRestarts(echo)
        // The host's withdrawal is reported as a reload reports one, after the process's own line.
        let withdrawn = try await poll(atMost: .seconds(60)) {
            reported.withLock { $0 }.contains { $0.hasPrefix("withdrawn fixture-echo 1.0.0") }
        }
        let lines = reported.withLock { $0 }
        #expect(withdrawn, "\(lines)")
        let echoLine = try #require(lines.first { $0.hasPrefix("withdrawn fixture-echo 1.0.0") })
        #expect(echoLine.contains("its process was withdrawn: it ended 2 times"), "\(echoLine)")
        let userLine = try #require(lines.first { $0.hasPrefix("withdrawn fixture-echo-user 1.0.0") }, "\(lines)")
        #expect(userLine.contains("requires key 'fixture.echo'"), "\(userLine)")
        // Its slots and its user's are gone; the user was stopped; the clock serves on.
        #expect(host.locator.slotInfo(forKey: "fixture.echo") == nil)
        #expect(host.locator.slotInfo(forKey: "fixture.echo-user.answer") == nil)
        #expect(host.startedPlugins == ["clock"])
        #expect(try host.locator.tryService(key: SampleKeys.clock).now() > 0)
        // No process of the plugin's is left, nor a zombie; a proxy taken before says why.
        #expect(try await poll(atMost: .seconds(30)) { !pids.contains(where: OwnProcessReloadTests.exists) }, "\(pids)")
        #expect(OwnProcessReloadTests.processes(marked: mark).isEmpty)
        do {
            try await echo.ping()
            Issue.record("a withdrawn process answered")
        } catch let PluginActorError.unavailable(_, reason) {
            #expect(reason.contains("withdrawn"), "\(reason)")
        }
    }

    /// A reload with the files unchanged finds the withdrawn plugins' files served by none and loads
    /// them again, as new plugins: the echo plugin in a new process, its user started against it.
    @Test func aReloadBringsAWithdrawnPluginBackInANewProcess() async throws {
        let mark = UUID().uuidString
        let (host, reported) = try Self.host(mark: mark)
        defer { host.shutdown() }
        let pids = try await Self.crashPastItsRestarts(try host.locator.tryService(key: RemoteKeys.echo))
        #expect(try await poll(atMost: .seconds(60)) { host.locator.slotInfo(forKey: "fixture.echo-user.answer") == nil },
                "\(reported.withLock { $0 })")
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.map { "\($0.action) \($0.plugin) \($0.version ?? "")" }.sorted()
                == ["added fixture-echo 1.0.0", "added fixture-echo-user 1.0.0"], "\(report.text)")
        #expect(!report.hasProblems, "\(report.text)")
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let pid = try await echo.pid()
        #expect(!pids.contains(pid))
        #expect(OwnProcessReloadTests.processes(marked: mark) == [pid])
        let answer = try host.locator.tryService(key: ServiceLocatorEasyKey<String>(name: "fixture.echo-user.answer"))
        #expect(answer.hasPrefix("hello 42 a,b from pid \(pid) "), "\(answer)")
        #expect(Set(host.startedPlugins) == ["clock", "fixture-echo", "fixture-echo-user"])
    }

    /// A withdrawal that comes while a reload upgrades the plugin waits for the reload, or the reload
    /// for it (they hold one lock in turn, never each other's): either way the new version serves, from
    /// the one process left, and the withdrawal changes nothing it no longer serves.
    @Test func aWithdrawalDuringAnUpgradeLeavesTheNewVersionServing() async throws {
        let folder = try TemporaryFolder(), mark = UUID().uuidString, reloads = OwnProcessReloadTests()
        let host = try await reloads.host(in: folder, mark: mark, restarts: .init(maximum: 0))
        defer { host.shutdown() }
        let old = try host.locator.tryService(key: RemoteKeys.echo)
        let oldPID = try await old.pid()
        try folder.install("FixtureEchoPluginTwo", as: reloads.echo)
        let reload = StartedThread { host.reload() }
        try? await old.crash()
        let report = try await Self.finished(reload)
        let entry = try #require(report.entries.first { $0.plugin == "fixture-echo" }, "\(report.text)")
        #expect([.upgraded, .added].contains(entry.action) && entry.version == "2.0.0", "\(report.text)")
        // A withdrawal still waiting runs once the reload is done: it must find nothing of its own.
        try await Task.sleep(for: .milliseconds(500))
        let pid = try await host.locator.tryService(key: RemoteKeys.echo).pid()
        #expect(pid != oldPID)
        #expect(try await poll(atMost: .seconds(30)) { OwnProcessReloadTests.processes(marked: mark) == [pid] },
                "processes left: \(OwnProcessReloadTests.processes(marked: mark)), serving: \(pid)")
    }

    /// A shutdown while the process is withdrawn neither waits for the withdrawal forever nor leaves a
    /// process: whichever holds the host's lock first, the other follows.
    @Test func aShutdownDuringAWithdrawalEndsAndLeavesNoProcess() async throws {
        let mark = UUID().uuidString
        var settings = OwnProcessTests.processes(restarts: .init(maximum: 0))
        settings.environment[OwnProcessReloadTests.markVariable] = mark
        let host = PluginHost(processes: settings) { _ in }
        let loaded = await onAThreadOfItsOwn {
            host.load(["FixtureEchoUserPlugin", "FixtureEchoPlugin"].map { .file(BuiltPlugins.path($0)) })
        }
        #expect(loaded.problems.isEmpty, "\(loaded.problems)")
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let pid = try await echo.pid()
        let shutdown = StartedThread { host.shutdown() }
        try? await echo.crash()
        _ = try await Self.finished(shutdown)
        #expect(try await poll(atMost: .seconds(30)) { !OwnProcessReloadTests.exists(pid) }, "process \(pid) is still there")
        #expect(OwnProcessReloadTests.processes(marked: mark).isEmpty)
        #expect(host.startedPlugins.isEmpty)
    }

    /// The value of `work` once it is done; the bound only keeps a deadlock from hanging the suite.
    static func finished<T: Sendable>(_ work: StartedThread<T>) async throws -> T {
        let done = Collected<T?>(nil)
        Task { let value = await work.value; done.withLock { $0 = value } }
        let finished = try await poll(atMost: .seconds(120)) { done.withLock { $0 } != nil }
        return try #require(done.withLock { $0 }, "not done within 2 minutes (finished: \(finished)): a deadlock")
    }
}
