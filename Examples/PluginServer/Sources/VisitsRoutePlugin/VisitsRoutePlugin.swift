import PluginAPI
import RouteContracts

/// Contributes `GET /visits`, which counts with the counter plugin's service.
struct VisitsRoutePlugin: Plugin {
    static let route = RouteKeys.route("visits")
    static let metadata = PluginMetadata(name: "visits-route", version: "1.0.0", provides: [route],
                                         requires: [RouteKeys.counter])
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        let counter = try registrar.services.tryService(key: RouteKeys.counter)
        try registrar.addService(key: Self.route, service: VisitsRoute(counter: counter))
    }
}

struct VisitsRoute: RouteHandler {
    let method = "GET"
    let path = "/visits"
    let counter: any VisitCounter

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        RouteResponse(body: "visit \(counter.next())\n")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(VisitsRoutePlugin.self) }
