#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PluginAPI
import RouteContracts

/// Serves `GET /block`, whose handler blocks its thread for 10 s and ignores cancellation, as careless
/// plugin code does (a blocking call, a busy loop). Only when PLUGIN_SERVER_FIXTURES is set (the tests
/// set it): a server started on the whole build folder, as the README shows, gets an empty plugin.
struct BlockingRoutePlugin: Plugin {
    static let active = getenv("PLUGIN_SERVER_FIXTURES") != nil
    static let route = RouteKeys.route("block")
    static let metadata = PluginMetadata(name: "fixture-blocking-route", version: "1.0.0", provides: active ? [route] : [])
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        if Self.active {
            try registrar.addService(key: Self.route, service: BlockingRoute())
        }
    }
}

struct BlockingRoute: RouteHandler {
    let method = "GET"
    let path = "/block"

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        sleep(10)
        return RouteResponse(body: "unblocked\n")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(BlockingRoutePlugin.self) }
