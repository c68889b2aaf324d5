import FixtureRemoteContracts
import Foundation
import HostKit
import PluginAPI
import PluginActors
import TestSupport
import Testing

/// A plugin placed in a process of its own writes to the host's log as it would in process: its
/// lines reach the host's `PluginLogs` with the name and version the host read, at the level the
/// host keeps for it, also from the process that replaces one that crashed.
@Suite struct OwnProcessLogTests {
    @Test func aPluginInAProcessOfItsOwnWritesToTheHostsLog() async throws {
        let lines = Collected<[PluginLogLine]>([])
        let logs = PluginLogs(level: .info) { line in lines.withLock { $0.append(line) } }
        let host = PluginHost(processes: OwnProcessTests.processes(), logs: logs) { _ in }
        defer { host.shutdown() }
        let report = host.load([.file(BuiltPlugins.path("FixtureEchoPlugin"))])
        #expect(report.problems.isEmpty, "\(report.text)")
        let registered = { lines.withLock { $0 }.filter { $0.message == "echo registered" } }
        #expect(try await poll(atMost: .seconds(60)) { registered().count == 1 }, "\(lines.withLock { $0 })")
        let line = try #require(registered().first)
        #expect(line.plugin == "fixture-echo" && line.version == "1.0.0" && line.level == .notice)
        #expect(line.metadata == ["version": "1.0.0"] && line.file == "FixtureEchoSupport/EchoFixture.swift", "\(line)")

        // The process that replaces a crashed one writes too; and a level above the line's keeps it out.
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        try? await echo.crash()
        #expect(try await poll(atMost: .seconds(60)) { registered().count == 2 }, "\(lines.withLock { $0 })")
        logs.setLevel(.warning, of: "fixture-echo")
        try? await echo.crash()
        var bound = PollBound(.seconds(60), every: .milliseconds(20))
        while (try? await echo.pid()) == nil, !bound.passed() { try await Task.sleep(for: .milliseconds(20)) }
        #expect(registered().count == 2, "a line below the plugin's level was written: \(lines.withLock { $0 })")
    }

    /// A line the plugin writes while it serves a call carries the trace context the call came with
    /// (`PluginCallContext`'s `traceparent`), so that the host's log ties it to the request; a line of
    /// a call without one carries none.
    @Test func aLineWrittenWhileACallIsServedCarriesItsTrace() async throws {
        let lines = Collected<[PluginLogLine]>([])
        let logs = PluginLogs(level: .debug) { line in lines.withLock { $0.append(line) } }
        let host = PluginHost(processes: OwnProcessTests.processes(), logs: logs) { _ in }
        defer { host.shutdown() }
        let report = await onAThreadOfItsOwn { host.load([.file(BuiltPlugins.path("FixtureEchoPlugin"))]) }
        #expect(report.problems.isEmpty, "\(report.text)")
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        _ = try await PluginCallContext.withHeaders(["traceparent": parent]) {
            try await echo.echo(EchoMessage(text: "traced", number: 1, tags: []))
        }
        _ = try await echo.echo(EchoMessage(text: "plain", number: 2, tags: []))
        let echoed = { lines.withLock { $0 }.filter { $0.message == "echoed" } }
        #expect(try await poll(atMost: .seconds(60)) { echoed().count == 2 }, "\(lines.withLock { $0 })")
        #expect(echoed().first { $0.metadata["text"] == "traced" }?.metadata["traceparent"] == parent, "\(echoed())")
        #expect(echoed().first { $0.metadata["text"] == "plain" }.map { $0.metadata["traceparent"] == nil } == true, "\(echoed())")
    }
}
