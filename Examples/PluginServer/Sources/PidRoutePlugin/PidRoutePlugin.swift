import Distributed
import DistributedRouteContracts
import Glibc
import PluginActors
import PluginAPI
import RouteContracts

/// Contributes `GET /pid`, which answers with the id of the process that serves it: a distributed
/// route (`DistributedRouteHandler`), so the operator may serve it from a process of its own
/// (`--own-process libPidRoutePlugin.so`), and see that it is another process than the server's.
struct PidRoutePlugin: Plugin {
    static let route = RouteKeys.distributedRoute("pid")
    static let metadata = PluginMetadata(name: "pid-route", version: "1.0.0", provides: [route])
    // A distributed contract's service runs on PluginActors' system: its version is checked at load too.
    static let contractLibraries: [LibraryVersion] = [.pluginActors, .routeContracts, .distributedRouteContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addLazyService(key: Self.route) { PidRoute() }
    }
}

/// `GET /pid`: `served by process 4242`.
distributed actor PidRoute: DistributedRouteHandler {
    typealias ActorSystem = PluginActorSystem

    init() {
        actorSystem = .shared
    }

    distributed func route() -> RouteSignature {
        RouteSignature(method: "GET", path: "/pid")
    }

    distributed func handle(_ request: RouteRequest) -> RouteResponse {
        RouteResponse(body: "served by process \(getpid())\n")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(PidRoutePlugin.self) }
