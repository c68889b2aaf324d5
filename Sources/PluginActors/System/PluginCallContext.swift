/// Text that a call to a service of another process carries beside its arguments: a trace's context
/// (W3C `traceparent` and `tracestate`), a request id. Neutral: the actor system neither reads nor
/// changes it, so a tracer of the application's choice (swift-distributed-tracing's, through
/// `Integrations/`) puts it in on one side and takes it out on the other.
///
/// A call takes the headers of the task that makes it; the service's method runs with those its
/// caller's call carried, so a call it makes in turn (a host lending one plugin's service to
/// another's process passes a call on so) carries them further. A call without headers costs nothing
/// more.
///
/// ```swift
/// try await PluginCallContext.withHeaders(["traceparent": parent]) {
///     try await forecast.today()   // the child's `today()` sees the same headers
/// }
/// ```
///
/// At most ``maximumCount`` headers, each name and value at most ``maximumLength`` bytes of UTF-8,
/// travel; a call with more fails before it is sent, naming the limit.
public enum PluginCallContext {
    /// The headers the calls made in this task carry; in a method called from another process, the
    /// headers of that call.
    public static var headers: [String: String] { current }

    /// Runs `operation` with `headers` as the headers of the calls it makes (in place of the task's).
    public static func withHeaders<T>(_ headers: [String: String], isolation: isolated (any Actor)? = #isolation,
                                      _ operation: () async throws -> T) async rethrows -> T {
        try await $current.withValue(headers, operation: operation, isolation: isolation)
    }

    /// Where ``headers`` is kept: a task-local value, which the tasks a task starts inherit.
    @TaskLocal private static var current: [String: String] = [:]

    /// The most headers one call carries.
    public static let maximumCount = 16
    /// The longest name or value of a header, in bytes of UTF-8.
    public static let maximumLength = 1024

    /// Why `headers` cannot travel with a call, or nil.
    static func refusal(of headers: [String: String]) -> String? {
        if headers.count > maximumCount {
            return "a call carries at most \(maximumCount) headers (PluginCallContext), not \(headers.count)"
        }
        if let long = headers.first(where: { $0.key.utf8.count > maximumLength || $0.value.utf8.count > maximumLength }) {
            return "the header '\(long.key.prefix(64))' is longer than \(maximumLength) bytes (PluginCallContext)"
        }
        return nil
    }
}
