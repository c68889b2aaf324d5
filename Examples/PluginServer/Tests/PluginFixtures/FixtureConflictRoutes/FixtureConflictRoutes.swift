#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PluginAPI
import RouteContracts

/// Claims routes the server or another plugin serves: `GET /plugins` and `GET /plugins/` (the server's
/// listing) and `GET /hello` (the hello plugin's, whose slot key `route.hello` sorts before this one's
/// `route.hello-too`); the server refuses each and logs it. `GET /fixture/free` is nobody else's and
/// is served. Only when PLUGIN_SERVER_FIXTURES is set (the tests set it): a server started on the
/// whole build folder, as the README shows, gets an empty plugin instead.
struct ConflictRoutesPlugin: Plugin {
    static let routes: [(key: ServiceLocatorEasyKey<any RouteHandler>, path: String)] =
        getenv("PLUGIN_SERVER_FIXTURES") == nil ? [] : [
            (RouteKeys.route("hello-too"), "/hello"),
            (RouteKeys.route("plugins"), "/plugins"),
            (RouteKeys.route("plugins-slash"), "/plugins/"),
            (RouteKeys.route("fixture-free"), "/fixture/free"),
        ]
    static let metadata = PluginMetadata(name: "fixture-conflict-routes", version: "1.0.0",
                                         provides: routes.map(\.key))
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        for (key, path) in Self.routes {
            try registrar.addService(key: key, service: FixedRoute(path: path))
        }
    }
}

/// Answers `GET path` with "fixture-conflict-routes".
struct FixedRoute: RouteHandler {
    let method = "GET"
    let path: String

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        RouteResponse(body: "fixture-conflict-routes\n")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(ConflictRoutesPlugin.self) }
