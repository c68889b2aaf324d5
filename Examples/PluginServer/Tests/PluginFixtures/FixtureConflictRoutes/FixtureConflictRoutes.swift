#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PluginAPI
import RouteContracts

/// Claims routes the server or another plugin serves: `GET /plugins` and `GET /plugins/` (the server's
/// listing) and `GET /hello` (the hello plugin's, whose slot key `route.hello` sorts before this one's
/// `route.hello-too`), and `HEAD` or `OPTIONS` of such paths; the server refuses each and logs it.
/// `GET /fixture/free` and `GET /fixture/slashed/` are nobody else's and are served. Only when PLUGIN_SERVER_FIXTURES is set (the tests set it): a server started on the
/// whole build folder, as the README shows, gets an empty plugin instead.
struct ConflictRoutesPlugin: Plugin {
    /// Each slot and its route: `path`, or `METHOD path` for another method than GET.
    static let routes: [(key: ServiceLocatorEasyKey<any RouteHandler>, route: String)] =
        getenv("PLUGIN_SERVER_FIXTURES") == nil ? [] : [
            (RouteKeys.route("hello-too"), "/hello"),
            (RouteKeys.route("plugins"), "/plugins"),
            (RouteKeys.route("plugins-slash"), "/plugins/"),
            (RouteKeys.route("fixture-free"), "/fixture/free"),
            (RouteKeys.route("fixture-slashed"), "/fixture/slashed/"),
            // HEAD is answered wherever GET is, OPTIONS for every path served: each of these takes a
            // method the server or the hello plugin answers already.
            (RouteKeys.route("hello-head"), "HEAD /hello"),
            (RouteKeys.route("hello-options"), "OPTIONS /hello/"),
            (RouteKeys.route("plugins-head"), "HEAD /plugins"),
            (RouteKeys.route("compiled-options"), "OPTIONS /compiled/hello"),
        ]
    static let metadata = PluginMetadata(name: "fixture-conflict-routes", version: "1.0.0",
                                         provides: routes.map(\.key))
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        for (key, route) in Self.routes {
            let words = route.split(separator: " ").map(String.init)
            try registrar.addService(key: key, service: words.count == 2 ? FixedRoute(method: words[0], path: words[1]) : FixedRoute(path: route))
        }
    }
}

/// Answers `method` `path` with "fixture-conflict-routes".
struct FixedRoute: RouteHandler {
    var method = "GET"
    let path: String

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        RouteResponse(body: "fixture-conflict-routes\n")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(ConflictRoutesPlugin.self) }
