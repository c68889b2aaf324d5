import Distributed
import DistributedRouteContracts
import PluginActors
import RouteContracts

/// A distributed route handler (``DistributedRouteHandler``) as the server serves every route: its
/// method and path as it said them when it was read, each request a call of the actor (in this
/// process, or through a proxy to the plugin's own process, whose failure throws: a 500).
struct DistributedRoute: RouteHandler {
    let actor: any DistributedRouteHandler
    let method: String
    let path: String

    /// `actor`, with the route it says it serves.
    init(_ actor: any DistributedRouteHandler) async throws {
        let route = try await actor.route()
        self.actor = actor
        method = route.method
        path = route.path
    }

    /// The request's W3C trace context (`traceparent`, `tracestate`) goes with the call as its headers
    /// (PluginActors' `PluginCallContext`): into the plugin's own process too, whose side of the call
    /// a host with a tracer records as a span of that trace (`PluginProcesses.servedCalls` with
    /// Integrations' `PluginCallTracing.recorder()`; this server bootstraps no tracer).
    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        var headers = PluginCallContext.headers
        // A value longer than a call may carry is a client's mistake: left out, not the request's failure.
        for name in Self.traceHeaders {
            if let value = request.headers[name], value.utf8.count <= PluginCallContext.maximumLength { headers[name] = value }
        }
        return try await PluginCallContext.withHeaders(headers) { try await actor.handle(request) }
    }

    /// The headers of a W3C trace context.
    static let traceHeaders = ["traceparent", "tracestate"]
}
