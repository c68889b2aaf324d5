import Distributed
import Glibc
import HostKit
import InMemoryTracing
@_spi(HostKit) import PluginActors
import PluginHostTracing
import Testing
import Tracing

/// One trace across a process boundary: two actor systems joined by a socket pair stand for the host
/// and a plugin's process (the boundary is the wire; the same code runs in a real child), each side
/// with a tracer of its own that records in memory.
@Suite struct PluginCallTracingTests {
    /// A request's span in the host, a client span around the call, and the served method's span in
    /// the other process: one trace, each the child of the one before; the served method's work sees
    /// its own span's context.
    @Test func aCallsSpanContinuesInTheProcessThatServesIt() async throws {
        let host = InMemoryTracer(), child = InMemoryTracer()
        let pair = try SystemPair(serving: { TracedService(tracer: child, actorSystem: $0) })
        let service = try pair.proxy()
        let request = host.startSpan("GET /weather", ofKind: .server)
        let seen = try await ServiceContext.withValue(request.context) {
            try await PluginCallTracing.withClientSpan("Weather.today", tracer: host) { try await service.today() }
        }
        request.end()

        let hostSpans = host.finishedSpans, childSpans = child.finishedSpans
        let call = try #require(hostSpans.first { $0.operationName == "Weather.today" }, "\(hostSpans.map(\.operationName))")
        let served = try #require(childSpans.first, "the served method made no span")
        #expect(call.kind == .client && served.kind == .server && served.operationName == "serve Weather.today")
        #expect(call.parentSpanID == request.spanContext.spanID && call.traceID == request.spanContext.traceID)
        #expect(served.traceID == call.traceID && served.parentSpanID == call.spanID,
                "served \(served.spanContext), called \(call.spanContext)")
        #expect(seen == served.spanID, "the method's work ran in its own span")
    }

    /// A method that throws ends its server span with the error, and the client span records it too.
    @Test func anErrorIsRecordedOnBothSpans() async throws {
        let host = InMemoryTracer(), child = InMemoryTracer()
        let pair = try SystemPair(serving: { TracedService(tracer: child, actorSystem: $0) })
        let service = try pair.proxy()
        await #expect(throws: PluginActorError.self) {
            try await PluginCallTracing.withClientSpan("Weather.fail", tracer: host) { try await service.fail() }
        }
        #expect(host.finishedSpans.first?.errors.count == 1)
        #expect(child.finishedSpans.first?.errors.count == 1)
    }

    /// The calls a plugin's process served, as it timed them (`PluginServedCall`), become server spans
    /// of the host's tracer: each a child of the client span whose context its call carried, with the
    /// process's instants, its plugin and method, and the failure of one that failed.
    @Test func aServedCallIsRecordedAsAServerSpanOfTheHostsTracer() async throws {
        let host = InMemoryTracer()
        let pair = try SystemPair(serving: { TracedService(tracer: NoOpTracer(), actorSystem: $0) })
        let recorder = PluginCallTracing.recorder(tracer: host)
        let (recorded, told) = AsyncStream.makeStream(of: PluginServedCall.self)
        // What a plugin's process tells its host (HostKit does this over the connection).
        pair.child.observeServedCalls { call in
            let served = PluginServedCall(plugin: "weather", version: "1.2.0", service: call.service, method: call.method,
                                          start: call.start, end: call.end, headers: call.headers, failure: call.failure)
            recorder.record(served)
            told.yield(served)
        }
        let service = try pair.proxy()
        _ = try await PluginCallTracing.withClientSpan("Weather.headers", tracer: host) { try await service.headers() }
        await #expect(throws: PluginActorError.self) { try await service.fail() }
        var calls = recorded.makeAsyncIterator()
        let first = try #require(await calls.next()), second = try #require(await calls.next())

        let spans = host.finishedSpans
        let client = try #require(spans.first { $0.operationName == "Weather.headers" }, "\(spans.map(\.operationName))")
        let served = try #require(spans.first { $0.operationName == "weather/headers" }, "\(spans.map(\.operationName))")
        #expect(served.kind == .server && served.traceID == client.traceID && served.parentSpanID == client.spanID)
        #expect(served.startInstant.nanosecondsSinceEpoch == first.start && served.endInstant.nanosecondsSinceEpoch == first.end)
        #expect(served.attributes["plugin.name"]?.toSpanAttribute() == "weather")
        #expect(served.attributes["rpc.method"]?.toSpanAttribute() == "headers")
        #expect(served.status == nil && served.errors.isEmpty)
        // A call made outside any span starts a trace of its own; its failure is the span's.
        let failed = try #require(spans.first { $0.operationName == "weather/fail" }, "\(spans.map(\.operationName))")
        #expect(failed.parentSpanID == nil && failed.traceID != client.traceID)
        #expect(failed.status?.code == .error && failed.errors.count == 1 && second.failure != nil, "\(String(describing: failed.status))")
    }

    /// With the no-op tracer nothing is added to a call: the served method sees no headers.
    @Test func theNoOpTracerAddsNothingToACall() async throws {
        let pair = try SystemPair(serving: { TracedService(tracer: NoOpTracer(), actorSystem: $0) })
        let service = try pair.proxy()
        let headers = try await PluginCallTracing.withClientSpan("Weather.headers", tracer: NoOpTracer()) {
            try await service.headers()
        }
        #expect(headers == [:])
    }
}

/// A plugin's contract, served across the pair.
@Resolvable
protocol Weather: DistributedActor where ActorSystem == PluginActorSystem {
    /// The id of the span its work ran in.
    distributed func today() async throws -> String
    distributed func fail() async throws
    distributed func headers() -> [String: String]
}

/// The plugin's service: each method in a server span of `tracer`'s.
distributed actor TracedService: Weather {
    typealias ActorSystem = PluginActorSystem
    let tracer: any Tracer

    init(tracer: any Tracer, actorSystem: PluginActorSystem) {
        self.tracer = tracer
        self.actorSystem = actorSystem
    }

    distributed func today() async throws -> String {
        try await PluginCallTracing.withServerSpan("serve Weather.today", tracer: tracer) {
            ServiceContext.current?.inMemorySpanContext?.spanID ?? "none"
        }
    }

    distributed func fail() async throws {
        try await PluginCallTracing.withServerSpan("serve Weather.fail", tracer: tracer) {
            throw WeatherUnavailable()
        }
    }

    distributed func headers() -> [String: String] { PluginCallContext.headers }
}

struct WeatherUnavailable: Error {}

/// Two actor systems joined by a socket pair: `host` calls, `child` serves one service as "weather".
final class SystemPair: Sendable {
    let host = PluginActorSystem()
    let child = PluginActorSystem()
    let sockets: (host: Int32, child: Int32)
    let connections: (host: PluginActorConnection, child: PluginActorConnection)

    init(serving make: (PluginActorSystem) -> TracedService) throws {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw PluginActorError.unsupported("socketpair failed")
        }
        sockets = (pair[0], pair[1])
        let service = make(child)
        connections = (
            try host.connect(peer: "child", socket: pair[0], serve: { name in throw PluginActorError.unsupported("no \(name)") }),
            try child.connect(peer: "host", socket: pair[1], serve: { _ in (service, $Weather.self) })
        )
    }

    /// The host's proxy of the child's service.
    func proxy() throws -> any Weather {
        try $Weather.resolve(id: PluginActorID(peer: "child", name: "weather"), using: host)
    }

    deinit {
        connections.host.close(.unavailable(peer: "child", reason: "test over"))
        connections.child.close(.unavailable(peer: "host", reason: "test over"))
        close(sockets.host)
        close(sockets.child)
    }
}
