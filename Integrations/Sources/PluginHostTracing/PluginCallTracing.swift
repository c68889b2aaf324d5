import PluginActors
import Tracing

/// One trace across the process boundary, with swift-distributed-tracing: a call to a service of a
/// plugin's own process carries its span's context in the call's headers (`PluginCallContext`, which
/// the actor system passes on unread), and the served method continues that trace in a span of its own.
///
/// The host side (the server's request handler, say) wraps each call in a client span:
///
/// ```swift
/// let forecast = try await PluginCallTracing.withClientSpan("Forecast.today") {
///     try await host.locator.tryService(key: WeatherKeys.forecast).today()
/// }
/// ```
///
/// and the plugin's method, in its process, runs in a server span that is that span's child:
///
/// ```swift
/// distributed func today() async throws -> Forecast {
///     try await PluginCallTracing.withServerSpan("Forecast.today") { try await lookUp() }
/// }
/// ```
///
/// Each side uses the tracer its process bootstrapped (`InstrumentationSystem`), or the one given;
/// with none (the no-op tracer), nothing is added to a call. The context travels in the W3C form the
/// tracer writes (`traceparent`, `tracestate`), or in its own.
public enum PluginCallTracing {
    /// Runs `operation`, which calls services of other processes, in a span named `name` of kind
    /// `client`, a child of the task's `ServiceContext`: each call it makes carries the span's
    /// context, as `tracer` injects it, beside the headers the task has. An error thrown is recorded
    /// on the span, and thrown.
    public static func withClientSpan<T>(_ name: String, tracer: any Tracer = InstrumentationSystem.tracer,
                                         isolation: isolated (any Actor)? = #isolation,
                                         _ operation: () async throws -> T) async throws -> T {
        let span = tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        defer { span.end() }
        var headers = PluginCallContext.headers
        tracer.inject(span.context, into: &headers, using: HeaderWriter())
        do {
            return try await ServiceContext.withValue(span.context, isolation: isolation) {
                try await PluginCallContext.withHeaders(headers, isolation: isolation, operation)
            }
        } catch {
            span.recordError(error)
            throw error
        }
    }

    /// Runs `body`, a served method's work, in a span named `name` of kind `server` that continues the
    /// trace its caller's call carried (as `tracer` extracts it from `PluginCallContext.headers`; a
    /// trace of its own if the call carried none), with that span's context as the task's
    /// `ServiceContext`. An error thrown is recorded on the span, and thrown.
    public static func withServerSpan<T>(_ name: String, tracer: any Tracer = InstrumentationSystem.tracer,
                                         isolation: isolated (any Actor)? = #isolation,
                                         _ body: () async throws -> T) async throws -> T {
        var parent = ServiceContext.topLevel
        tracer.extract(PluginCallContext.headers, into: &parent, using: HeaderReader())
        let span = tracer.startSpan(name, context: parent, ofKind: .server)
        defer { span.end() }
        do {
            return try await ServiceContext.withValue(span.context, isolation: isolation) { try await body() }
        } catch {
            span.recordError(error)
            throw error
        }
    }
}

/// Writes a trace's context into a call's headers.
struct HeaderWriter: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout [String: String]) {
        headers[key] = value
    }
}

/// Reads a trace's context from a call's headers.
struct HeaderReader: Extractor {
    func extract(key: String, from headers: [String: String]) -> String? {
        headers[key]
    }
}
