import HostKit
import Tracing

extension PluginCallTracing {
    /// What makes each call a plugin's own process served a span of the host's tracer: give it to
    /// the host's processes (`PluginProcesses.servedCalls`), and every call such a process serves
    /// shows in the host's traces as a `server` span, a child of the span whose context the call
    /// carried (``withClientSpan(_:tracer:isolation:_:)``), with the instants the process timed. The
    /// plugin's process has no network of its own (its sandbox), so its side of a call reaches the
    /// trace through the host, as its log lines do.
    ///
    /// ```swift
    /// var processes = PluginProcesses(executable: ..., arguments: [], files: ["libWeatherPlugin.so"])
    /// processes.servedCalls = PluginCallTracing.recorder()
    /// ```
    ///
    /// Each span is named `service/method` (`weather.forecast/today`), with the attributes
    /// `rpc.service`, `rpc.method`, `plugin.name` and `plugin.version`; a call that failed has the
    /// error status and its failure recorded. `tracer`: the one given, or (nil) the one the process
    /// bootstrapped when each call is recorded.
    public static func recorder(tracer: (any Tracer)? = nil) -> some PluginServedCallRecorder {
        ServedCallSpans(tracer: tracer)
    }
}

/// Makes each served call a span of a tracer (``PluginCallTracing/recorder(tracer:)``).
struct ServedCallSpans: PluginServedCallRecorder {
    let tracer: (any Tracer)?

    func record(_ call: PluginServedCall) {
        let tracer = tracer ?? InstrumentationSystem.tracer
        var parent = ServiceContext.topLevel
        tracer.extract(call.headers, into: &parent, using: HeaderReader())
        let span = tracer.startSpan("\(call.service)/\(call.method)", context: parent, ofKind: .server,
                                    at: ServedInstant(nanosecondsSinceEpoch: call.start))
        span.attributes["rpc.service"] = call.service
        span.attributes["rpc.method"] = call.method
        span.attributes["plugin.name"] = call.plugin
        span.attributes["plugin.version"] = call.version
        if let failure = call.failure {
            span.recordError(ServedCallFailure(description: failure), attributes: [:],
                             at: ServedInstant(nanosecondsSinceEpoch: call.end))
            span.setStatus(SpanStatus(code: .error, message: failure))
        }
        span.end(at: ServedInstant(nanosecondsSinceEpoch: call.end))
    }
}

/// An instant a plugin's process timed, on the machine's wall clock.
struct ServedInstant: TracerInstant {
    let nanosecondsSinceEpoch: UInt64

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch }
}

/// What a served call failed with, as its process said it (the error's type and text).
struct ServedCallFailure: Error, CustomStringConvertible {
    let description: String
}
