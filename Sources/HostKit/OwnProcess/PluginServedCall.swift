/// A call that a plugin in a process of its own served, as that process timed it: for a host's
/// traces, where it shows as the server's side of the host's call (Integrations'
/// `PluginCallTracing.recorder(tracer:)` makes it a span of the host's tracer, a child of the
/// caller's). The host names the plugin; the rest is the child's word, cut to size: the child is not
/// trusted, and its times are its clock's (the machine's wall clock).
public struct PluginServedCall: Sendable {
    /// The plugin, by the name and version the host read from its file.
    public let plugin: String, version: String
    /// The service called, by its store key (`fixture.echo`).
    public let service: String
    /// The method, as its contract names it (`echo`).
    public let method: String
    /// When the process began to serve the call, and when it sent the reply, in nanoseconds since 1970.
    public let start: UInt64, end: UInt64
    /// The headers the call came with (PluginActors' `PluginCallContext`): its caller's trace.
    public let headers: [String: String]
    /// Nil if the method returned; else the error it threw (its type and text), or why it did not run.
    public let failure: String?

    /// A served call as told (a recorder's tests make their own).
    public init(plugin: String, version: String, service: String, method: String, start: UInt64, end: UInt64,
                headers: [String: String], failure: String?) {
        (self.plugin, self.version, self.service, self.method) = (plugin, version, service, method)
        (self.start, self.end, self.headers, self.failure) = (start, end, headers, failure)
    }
}
