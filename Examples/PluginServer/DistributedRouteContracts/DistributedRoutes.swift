public import Distributed
public import PluginActors
public import PluginAPI
public import RouteContracts

/// A route served by a distributed actor: what a `RouteHandler` does, in a contract
/// that can cross a process. Loaded in the server's process, the plugin's actor is called as itself;
/// placed in a process of its own (`plugin-server --own-process FILE`), through a proxy, so that a
/// crash of the plugin costs its process, not the server. Its method and path are asked once per
/// install of the routes.
@Resolvable
public protocol DistributedRouteHandler: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
    /// The method and path it serves.
    distributed func route() -> RouteSignature
    /// Answers one request.
    distributed func handle(_ request: RouteRequest) async throws -> RouteResponse
}

/// The method and path of a route, such as `GET` `/hello`.
public struct RouteSignature: Codable, Sendable, Equatable {
    /// The HTTP method, such as `GET`.
    public var method: String
    /// The path, such as `/hello`.
    public var path: String

    /// The route `method` `path`.
    public init(method: String, path: String) {
        self.method = method
        self.path = path
    }
}

extension RouteKeys {
    /// The slot of a route plugin's distributed handler: the server serves every slot of this type as
    /// it serves those of `route(_:)`.
    public static func distributedRoute(_ name: String)
        -> DistributedServiceEasyKey<any DistributedRouteHandler, $DistributedRouteHandler<PluginActorSystem>> {
        DistributedServiceEasyKey(name: "route.\(name)")
    }
}
