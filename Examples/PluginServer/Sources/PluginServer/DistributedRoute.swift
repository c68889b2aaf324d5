import Distributed
import DistributedRouteContracts
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

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        try await actor.handle(request)
    }
}
