import Distributed
import DistributedRouteContracts
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PluginActors
import PluginAPI
import RouteContracts

/// The plugin `fixture-remote-route`: a distributed route (``DistributedRouteHandler``), which the
/// tests place in a process of its own (`--own-process libFixtureRemoteRoute.so`) and kill there.
/// `GET /remote` answers `remote <pid>`, the id of the process that serves it. Only when
/// PLUGIN_SERVER_FIXTURES is set (the tests set it); otherwise it provides nothing.
struct RemoteRoutePlugin: Plugin {
    static var active: Bool { getenv("PLUGIN_SERVER_FIXTURES") != nil }
    static var route: DistributedServiceEasyKey<any DistributedRouteHandler, $DistributedRouteHandler<PluginActorSystem>> {
        RouteKeys.distributedRoute("remote")
    }

    static var metadata: PluginMetadata {
        PluginMetadata(name: "fixture-remote-route", version: "1.0.0", provides: active ? [route] : [])
    }

    static var contractLibraries: [LibraryVersion] { [.pluginActors, .routeContracts, .distributedRouteContracts] }

    func registerServices(in registrar: ModuleRegistrar) throws {
        if Self.active { try registrar.addLazyService(key: Self.route) { RemoteRoute() } }
    }
}

/// `GET /remote`: the process that serves it.
distributed actor RemoteRoute: DistributedRouteHandler {
    typealias ActorSystem = PluginActorSystem

    init() {
        actorSystem = .shared
    }

    distributed func route() -> RouteSignature {
        RouteSignature(method: "GET", path: "/remote")
    }

    distributed func handle(_ request: RouteRequest) -> RouteResponse {
        RouteResponse(body: "remote \(getpid())")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(RemoteRoutePlugin.self) }
