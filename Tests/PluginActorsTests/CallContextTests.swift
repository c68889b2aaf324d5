import Distributed
@_spi(HostKit) @testable import PluginActors
import Testing

/// The headers a call carries (``PluginCallContext``): a trace's context, put in by the caller's
/// tracer and taken out by the served method's, which the system carries unread.
@Suite struct CallContextTests {
    let trace = ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "congo=t61rcWkgMzE"]

    @Test func aCallCarriesTheHeadersOfItsTaskToTheMethodItCalls() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        #expect(try await proxy.headers() == [:])
        let seen = try await PluginCallContext.withHeaders(trace) { try await proxy.headers() }
        #expect(seen == trace)
        // The method's task had them for that call only.
        #expect(try await proxy.headers() == [:])
    }

    /// A host that lends one process's service to another passes a call on with the headers it came with.
    @Test func aCallPassedOnCarriesItsHeadersFurther() async throws {
        let systems = try RelayTests.ThreeSystems()
        let proxy = try systems.proxy()
        let seen = try await PluginCallContext.withHeaders(trace) { try await proxy.headers() }
        #expect(seen == trace)
    }

    /// A call without headers is the plain call frame it was before there were any; one with them
    /// holds them, sorted by name, between its target and its arguments.
    @Test func headersCostACallWithoutThemNothing() async throws {
        let plain = try await Self.frameSent([:])
        #expect(plain.kind == .call)
        let carrying = try await Self.frameSent(trace)
        #expect(carrying.kind == .callWithHeaders)
        var reader = FrameReader(carrying.body)
        _ = try reader.shortText()
        _ = try reader.shortText()
        #expect(try reader.integer(UInt16.self) == 2)
        #expect(try [reader.shortText(), reader.shortText(), reader.shortText(), reader.shortText()]
                == ["traceparent", trace["traceparent"], "tracestate", trace["tracestate"]])
    }

    /// More headers than a call carries, or a longer one, fail the call before it is sent, naming the limit.
    @Test func tooManyOrTooLongHeadersFailTheCallNamingTheLimit() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        let many = Dictionary(uniqueKeysWithValues: (0...PluginCallContext.maximumCount).map { ("h\($0)", "v") })
        let long = ["traceparent": String(repeating: "x", count: PluginCallContext.maximumLength + 1)]
        for (headers, says) in [(many, "at most 16 headers"), (long, "longer than 1024 bytes")] {
            do {
                _ = try await PluginCallContext.withHeaders(headers) { try await proxy.headers() }
                Issue.record("a call with \(headers.count) headers was sent")
            } catch let PluginActorError.invalidMessage(_, reason) {
                #expect(reason.contains(says), "\(reason)")
            }
        }
        #expect(try await proxy.headers() == [:])
    }

    /// A peer's call whose headers are cut short, repeated, too many or too long is answered as an
    /// invalid message, and the connection serves on.
    @Test func aPeersBadHeadersAreAnInvalidCallNotTheEndOfTheConnection() async throws {
        let target = try await ConnectionAdversaryTests.targetSent { system in
            _ = try await $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "raw", name: "calc"), using: system).headers()
        }
        let calculator = LocalCalculator(actorSystem: PluginActorSystem())
        let served = try RawPeer(connecting: PluginActorSystem(), as: "raw-client") { _ in (calculator, $Calculator<PluginActorSystem>.self) }
        let bad: [(inout [UInt8]) -> Void] = [
            { $0.appendLittleEndian(UInt16(2)); $0.appendShortText("a"); $0.appendShortText("1") },
            { $0.appendLittleEndian(UInt16(2)); for _ in 0..<2 { $0.appendShortText("a"); $0.appendShortText("1") } },
            { $0.appendLittleEndian(UInt16(PluginCallContext.maximumCount + 1)) },
            // Longer than a caller may send (and than a relay would pass on), shorter than a frame's text.
            { $0.appendLittleEndian(UInt16(1)); $0.appendShortText("tracestate"); $0.appendShortText(String(repeating: "x", count: 2_000)) },
        ]
        for (index, headers) in bad.enumerated() {
            try served.send(.callWithHeaders, call: UInt64(index + 1)) { body in
                body.appendShortText("calc")
                body.appendShortText(target)
                headers(&body)
                body.append(contentsOf: [0, 0])
            }
            let reply = try #require(await served.nextFrame())
            #expect(reply.call == UInt64(index + 1) && reply.kind == .failure, "\(reply.kind)")
            #expect(try WireFormat.decode(Frame.Failure.self, from: reply.body).reason == .invalidMessage)
        }
        try served.send(.callWithHeaders, call: 9) { body in
            body.appendShortText("calc")
            body.appendShortText(target)
            body.appendLittleEndian(UInt16(1))
            body.appendShortText("traceparent")
            body.appendShortText("00-1-2-01")
            body.append(contentsOf: [0, 0])
        }
        let reply = try #require(await served.nextFrame())
        #expect(reply.call == 9 && reply.kind == .value, "\(reply.kind): \(String(describing: try? WireFormat.decode(Frame.Failure.self, from: reply.body)))")
        #expect((try? WireFormat.decode([String: String].self, from: reply.body)) == ["traceparent": "00-1-2-01"])
    }

    /// The frame a system sends for a call made with `headers` to a peer that never answers.
    static func frameSent(_ headers: [String: String]) async throws -> Frame {
        let system = PluginActorSystem()
        let raw = try RawPeer(connecting: system, as: "raw")
        let call = Task {
            try await PluginCallContext.withHeaders(headers) {
                try await $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "raw", name: "calc"), using: system).nothing()
            }
        }
        defer { call.cancel() }
        return try #require(await raw.nextFrame())
    }
}
