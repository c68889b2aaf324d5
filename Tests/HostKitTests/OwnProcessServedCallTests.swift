import FixtureRemoteContracts
import Foundation
import HostKit
@_spi(HostKit) import PluginActors
import TestSupport
import Testing

/// A plugin's own process times the calls it serves and tells the host, when the host keeps them
/// (`PluginProcesses.servedCalls`): for its traces, the server's side of each call, with the headers
/// the call came with.
@Suite struct OwnProcessServedCallTests {
    final class Recorder: PluginServedCallRecorder {
        let calls = Collected<[PluginServedCall]>([])
        func record(_ call: PluginServedCall) { calls.withLock { $0.append(call) } }
    }

    @Test func eachCallServedReachesTheRecorderWithItsHeadersAndTimes() async throws {
        let recorder = Recorder()
        var processes = OwnProcessTests.processes()
        processes.servedCalls = recorder
        let host = PluginHost(processes: processes) { _ in }
        defer { host.shutdown() }
        let report = await onAThreadOfItsOwn { host.load([.file(BuiltPlugins.path("FixtureEchoPlugin"))]) }
        #expect(report.problems.isEmpty, "\(report.text)")
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let before = PluginActorSystem.wallClockNow()
        _ = try await PluginCallContext.withHeaders(["traceparent": parent]) {
            try await echo.echo(EchoMessage(text: "traced", number: 1, tags: []))
        }
        await #expect(throws: (any Error).self) { try await echo.fail("on purpose") }
        let after = PluginActorSystem.wallClockNow()
        #expect(try await poll(atMost: .seconds(60)) { recorder.calls.withLock { $0.count } >= 2 }, "\(recorder.calls.withLock { $0 })")
        let calls = recorder.calls.withLock { $0 }
        // The host's start steps are no call of the plugin's services: only the two calls are told.
        #expect(calls.count == 2, "\(calls)")
        let echoed = try #require(calls.first { $0.method == "echo" }, "\(calls)")
        #expect(echoed.plugin == "fixture-echo" && echoed.version == "1.0.0" && echoed.service == "fixture.echo", "\(echoed)")
        #expect(echoed.headers == ["traceparent": parent] && echoed.failure == nil, "\(echoed)")
        // Within the host's own view of the calls, on the machine's one wall clock (a second of slack
        // for a clock set meanwhile).
        let slack: UInt64 = 1_000_000_000
        #expect(before <= echoed.start + slack && echoed.start <= echoed.end && echoed.end <= after + slack, "\(before) \(echoed) \(after)")
        let failed = try #require(calls.first { $0.method == "fail" }, "\(calls)")
        #expect(failed.headers.isEmpty && failed.failure?.contains("on purpose") == true, "\(failed)")
    }
}
