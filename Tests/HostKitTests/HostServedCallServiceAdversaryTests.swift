import Dispatch
import Distributed
import Glibc
@testable import HostKit
@_spi(HostKit) import PluginActors
import TestSupport
import Testing

/// A hostile process of a plugin telling the host of calls it never served, or of calls too big to
/// keep (``HostServedCallService``), over a socket pair: two actor systems stand for host and child.
@Suite struct HostServedCallServiceAdversaryTests {
    final class Recorder: PluginServedCallRecorder {
        let calls = Collected<[PluginServedCall]>([])
        /// Held while a test wants the host's queue blocked.
        let gate = DispatchSemaphore(value: 1)
        func record(_ call: PluginServedCall) {
            gate.wait()
            gate.signal()
            calls.withLock { $0.append(call) }
        }
    }

    /// The host serves `real` 1.0.0's `__calls`; the child tells it what it likes.
    struct HostAndChild {
        let systems: HostAndChildSystems

        init(_ recorder: Recorder) throws {
            systems = try HostAndChildSystems(serving: HostServedCallService.name) { host in
                (HostServedCallService(actorSystem: host, plugin: "real", version: "1.0.0", provides: ["fixture.echo"], recorder: recorder,
                                       writer: DispatchQueue(label: "plugin served calls")), HostServedCallService.self)
            }
        }

        func calls() throws -> HostServedCallService {
            try HostServedCallService.resolve(id: PluginActorID(peer: "host", name: HostServedCallService.name), using: systems.child)
        }
    }

    /// A call of `service` that began `start` and ended `end` nanoseconds from now (a moment ago, by default).
    static func call(_ method: String, service: String = "fixture.echo", start: Int64 = -2_000, end: Int64 = -1_000,
                     headers: [String: String] = [:], failure: String? = nil) -> ChildServedCall {
        let now = Int64(PluginActorSystem.wallClockNow())
        return ChildServedCall(service: service, method: method, start: UInt64(now + start), end: UInt64(now + end),
                               headers: headers, failure: failure)
    }

    /// The host names the plugin, whatever the child claims; a call of a service the plugin does not
    /// provide, one that ends before it began, began before the service was made or ends in the
    /// future is dropped; every text is cut to 1 KiB and the headers to 16.
    @Test func forgedAndHugeCallsAreNamedByTheHostAndCut() async throws {
        let recorder = Recorder()
        let pair = try HostAndChild(recorder)
        let huge = String(repeating: "x", count: 5_000)
        let headers = Dictionary(uniqueKeysWithValues: (0..<100).map { ("h\($0)", huge) })
        let second: Int64 = 1_000_000_000
        try await pair.calls().record([Self.call("backwards", start: -1_000, end: -2_000),
                                       Self.call("another plugin's", service: "fixture.other"),
                                       Self.call("before the process", start: -60 * second),
                                       Self.call("in the future", end: 60 * second),
                                       Self.call(huge, headers: headers, failure: huge), Self.call("mark")])
        #expect(try await poll(atMost: .seconds(60)) { recorder.calls.withLock { $0.contains { $0.method == "mark" } } })
        let calls = recorder.calls.withLock { $0 }
        #expect(calls.count == 2, "\(calls.map(\.method))")
        let big = try #require(calls.first)
        #expect(big.plugin == "real" && big.version == "1.0.0")
        #expect(big.method.utf8.count < 1100 && big.method.hasSuffix("bytes cut)"))
        #expect(big.failure.map { $0.utf8.count < 1100 } == true)
        #expect(big.headers.count == HostServedCallService.headerCount && big.headers.values.allSatisfy { $0.utf8.count < 1100 })
    }

    /// While the recorder blocks, a child that sends more than the backlog loses the rest, not the
    /// host's memory; the host answers it at once all the same.
    @Test func pastTheBacklogLaterCallsAreDropped() async throws {
        let recorder = Recorder()
        let pair = try HostAndChild(recorder)
        recorder.gate.wait()
        let batch = (0..<1000).map { Self.call("c\($0)") }
        for _ in 0..<6 { try await pair.calls().record(batch) }
        recorder.gate.signal()
        // The mark once the backlog is written: sent while it drains, it would be dropped too.
        _ = try await poll(atMost: .seconds(60)) { recorder.calls.withLock { $0.count } >= HostServedCallService.backlog }
        try await pair.calls().record([Self.call("mark")])
        #expect(try await poll(atMost: .seconds(60)) { recorder.calls.withLock { $0.contains { $0.method == "mark" } } })
        let count = recorder.calls.withLock { $0.count }
        // The one the writer took before it blocked may come on top of the backlog.
        #expect(count >= HostServedCallService.backlog && count <= HostServedCallService.backlog + 2, "\(count)")
    }
}
