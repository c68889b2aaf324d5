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

/// A version number, for ``RemoteRoutePlugin``.
public protocol RemoteRouteVersion: Sendable {
    static var number: Int { get }
}

/// The plugin `fixture-remote-route` in the version `Version` (FixtureRemoteRoute and
/// FixtureRemoteRouteTwo: one plugin name in two files): a distributed route
/// (``DistributedRouteHandler``), which the tests place in a process of its own
/// (`--own-process libFixtureRemoteRoute.so`), kill there and upgrade. `GET /remote` answers
/// `remote <pid>` (version 1) or `remote 2 <pid>` (version 2), with the id of the process that serves
/// it. Only when PLUGIN_SERVER_FIXTURES is set (the tests set it); otherwise it provides nothing.
public struct RemoteRoutePlugin<Version: RemoteRouteVersion>: Plugin {
    static var active: Bool { getenv("PLUGIN_SERVER_FIXTURES") != nil }
    static var route: DistributedServiceEasyKey<any DistributedRouteHandler, $DistributedRouteHandler<PluginActorSystem>> {
        RouteKeys.distributedRoute("remote")
    }

    public static var metadata: PluginMetadata {
        PluginMetadata(name: "fixture-remote-route", version: "\(Version.number).0.0", provides: active ? [route] : [])
    }

    public init() {}

    public static var contractLibraries: [LibraryVersion] { [.pluginActors, .routeContracts, .distributedRouteContracts] }

    public func registerServices(in registrar: ModuleRegistrar) throws {
        if Self.active { try registrar.addLazyService(key: Self.route) { RemoteRoute(number: Version.number) } }
    }
}

/// `GET /remote`: the process that serves it; with `?trace`, the trace context its call carried
/// (`trace <traceparent or none> from <pid>`).
distributed actor RemoteRoute: DistributedRouteHandler {
    typealias ActorSystem = PluginActorSystem

    let number: Int

    init(number: Int) {
        self.number = number
        actorSystem = .shared
    }

    distributed func route() -> RouteSignature {
        RouteSignature(method: "GET", path: "/remote")
    }

    distributed func handle(_ request: RouteRequest) -> RouteResponse {
        if request.query["trace"] != nil {
            return RouteResponse(body: "trace \(PluginCallContext.headers["traceparent"] ?? "none") from \(getpid())")
        }
        return RouteResponse(body: number == 1 ? "remote \(getpid())" : "remote \(number) \(getpid())")
    }
}
