import FixtureRemoteContracts
import Foundation
import HostKit
import PluginAPI
import PluginActors
import SampleContracts
import Synchronization
import TestSupport
import Testing

/// A host with `PluginMetrics` counts each plugin's slots (gets, failed gets, services made), its
/// hooks, what reloads did to it, and its process's restarts: real sample plugins and a real child.
@Suite struct PluginMetricsTests {
    /// Every event, as a line: `got greeter/sample.greeter`, `hook start clock finished`, ...
    final class Recorder: PluginMetrics {
        let events = Mutex<[String]>([])
        var all: [String] { events.withLock { $0 } }
        func count(_ event: String) -> Int { all.filter { $0 == event }.count }

        func counters(forKey key: String, origin: String?) -> any ServiceSlotCounters {
            Counters(slot: "\(origin ?? "host")/\(key)", recorder: self)
        }
        func hookEnded(plugin: String, hook: String, outcome: HookOutcome, duration: Duration) {
            events.withLock { $0.append("hook \(hook) \(plugin) \(outcome.isFinished ? "finished" : "failed")") }
        }
        func reloaded(plugin: String, action: ReloadReport.Action) {
            events.withLock { $0.append("reload \(action.rawValue) \(plugin)") }
        }
        func processRestarted(plugin: String) {
            events.withLock { $0.append("restarted \(plugin)") }
        }
        func processCalled(plugin: String, method: String, outcome: String, duration: Duration) {
            events.withLock { $0.append("called \(plugin) \(method) \(outcome)") }
        }

        struct Counters: ServiceSlotCounters {
            let slot: String
            let recorder: Recorder
            func got() { recorder.events.withLock { $0.append("got \(slot)") } }
            func failed() { recorder.events.withLock { $0.append("failed \(slot)") } }
            func made(in duration: Duration) { recorder.events.withLock { $0.append("made \(slot)") } }
        }
    }

    @Test func slotsHooksAndReloadsAreCountedByPlugin() throws {
        let folder = try TemporaryFolder()
        try folder.copy("ClockPlugin", as: "libClockPlugin.so")
        let metrics = Recorder()
        let host = PluginHost(metrics: metrics)
        #expect(host.load([.directory(folder.path)]).problems.isEmpty)
        try folder.copy("GreeterPlugin", as: "libGreeterPlugin.so")
        let reload = host.reload()
        #expect(reload.entries.map(\.action) == [.added], "\(reload.entries.map(\.summary))")
        let greeter = try host.locator.tryService(key: SampleKeys.greeter)
        _ = greeter.greet("you")
        _ = host.locator.getService(key: ServiceLocatorEasyKey<Int>(name: "sample.clock"))  // another type
        host.shutdown()

        let events = metrics.all
        #expect(metrics.count("got greeter/sample.greeter") == 1, "\(events)")
        #expect(metrics.count("made greeter/sample.greeter") == 1, "\(events)")
        // The greeter's factory got the clock through what the greeter was lent: counted as any get.
        #expect(metrics.count("got clock/sample.clock") >= 1, "\(events)")
        #expect(metrics.count("failed clock/sample.clock") == 1, "\(events)")
        #expect(metrics.count("hook start clock finished") == 1 && metrics.count("hook start greeter finished") == 1, "\(events)")
        #expect(metrics.count("reload added greeter") == 1, "\(events)")
        #expect(metrics.count("hook shutdown greeter finished") == 1 && metrics.count("hook shutdown clock finished") == 1,
                "\(events)")
    }

    /// With a base locator of the host's own, which counts nothing, the plugins' slots are counted.
    @Test func aHostOnABaseCountsItsPluginsSlots() throws {
        let base = ServiceLocator()
        try base.addService(key: ServiceLocatorEasyKey<String>(name: "host.config"), service: "config")
        let metrics = Recorder()
        let host = try PluginHost(base: base, metrics: metrics)
        defer { host.shutdown() }
        #expect(host.load([.file(BuiltPlugins.path("ClockPlugin"))]).problems.isEmpty)
        _ = host.locator.getService(key: SampleKeys.clock)
        #expect(metrics.count("got clock/sample.clock") == 1, "\(metrics.all)")
    }

    /// A process of its own that crashes and is started again is counted.
    @Test func aRestartOfAPluginsProcessIsCounted() async throws {
        let metrics = Recorder()
        let host = PluginHost(processes: OwnProcessTests.processes(), metrics: metrics) { _ in }
        defer { host.shutdown() }
        #expect(host.load([.file(BuiltPlugins.path("FixtureEchoPlugin"))]).problems.isEmpty)
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        try? await echo.crash()
        #expect(try await poll(atMost: .seconds(60)) { metrics.count("restarted fixture-echo") == 1 }, "\(metrics.all)")
        // The proxy's slot is the host's: its gets are counted as any plugin's.
        #expect(metrics.count("got fixture-echo/fixture.echo") >= 1, "\(metrics.all)")
    }

    /// Each call the host makes to a plugin in a process of its own is counted under the plugin's
    /// name, by method and how it ended; the host's own calls that steer the process (load, start,
    /// heartbeat) are not.
    @Test func callsToAPluginInAProcessOfItsOwnAreCounted() async throws {
        let metrics = Recorder()
        let reported = Collected<[String]>([])
        // A ping times out after the heartbeat's interval: 5 s, which a child that answers meets on a
        // busy machine (at 50 ms one did not, and was killed). The child is stopped below so that a
        // ping is known to have been made: the one that fails.
        let host = PluginHost(processes: OwnProcessTests.processes(heartbeat: .seconds(5)), metrics: metrics) { line in
            reported.withLock { $0.append(line) }
        }
        defer { host.shutdown() }
        #expect(host.load([.file(BuiltPlugins.path("FixtureEchoPlugin"))]).problems.isEmpty)
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        _ = try await echo.echo(EchoMessage(text: "a", number: 1, tags: []))
        _ = try await echo.echo(EchoMessage(text: "b", number: 2, tags: []))
        await #expect(throws: (any Error).self) { try await echo.fail("no") }
        try? await echo.crash()
        #expect(try await poll(atMost: .seconds(60)) { metrics.count("restarted fixture-echo") == 1 }, "\(metrics.all)")
        // The restarted child stops answering: the heartbeat's next ping times out, and the child is
        // killed and started again.
        #expect(kill(try await echo.pid(), SIGSTOP) == 0)
        #expect(try await poll(atMost: .seconds(120)) { metrics.count("restarted fixture-echo") == 2 }, "\(metrics.all)")
        #expect(reported.withLock { $0 }.contains { $0.contains("did not answer within") }, "\(reported.withLock { $0 })")
        let calls = metrics.all.filter { $0.hasPrefix("called ") }
        #expect(calls.filter { $0 == "called fixture-echo echo answered" }.count == 2, "\(calls)")
        #expect(calls.contains("called fixture-echo fail threw"), "\(calls)")
        #expect(calls.contains("called fixture-echo crash failed"), "\(calls)")
        #expect(calls.contains("called fixture-echo pid answered"), "\(calls)")
        #expect(calls.count == 5, "the host's own calls (load, start, ping) were counted: \(calls)")
    }

    /// A call that fails before any connection carries it is counted too: here, once the plugin's
    /// process is withdrawn (it failed at once, `unavailable`). Before, only the calls a connection
    /// carried were: a server's 500s while its plugin restarted were counted as one.
    @Test func callsThatFailBeforeReachingAProcessAreCounted() async throws {
        let metrics = Recorder()
        let reported = Collected<[String]>([])
        let processes = OwnProcessTests.processes(restarts: .init(maximum: 0, window: .seconds(600), backoff: .milliseconds(10)))
        let host = PluginHost(processes: processes, metrics: metrics) { line in reported.withLock { $0.append(line) } }
        defer { host.shutdown() }
        #expect(host.load([.file(BuiltPlugins.path("FixtureEchoPlugin"))]).problems.isEmpty)
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        try? await echo.crash()
        try await waitFor(atMost: .seconds(60)) { reported.withLock { $0 }.contains { $0.contains("withdrawn") } }
        for _ in 0..<3 {
            await #expect(throws: PluginActorError.self) { _ = try await echo.pid() }
        }
        let calls = metrics.all.filter { $0.hasPrefix("called ") }
        #expect(calls.filter { $0 == "called fixture-echo pid failed" }.count == 3, "\(calls)")
        #expect(calls.contains("called fixture-echo crash failed"), "\(calls)")
    }
}
