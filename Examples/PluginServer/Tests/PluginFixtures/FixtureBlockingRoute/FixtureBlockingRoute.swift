#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PluginAPI
import RouteContracts

/// Serves `GET /block`, whose handler blocks its thread and ignores cancellation, as careless plugin
/// code does (a blocking call, a busy loop): for 10 s, or, given a file path GATE in
/// PLUGIN_SERVER_FIXTURE_GATE, until the test creates GATE (at most 10 minutes), each handler first
/// adding a line to GATE.entered, so that the test knows which handlers block while it asks the other
/// routes. Only when PLUGIN_SERVER_FIXTURES is set (the tests set it): a server started on the whole
/// build folder, as the README shows, gets an empty plugin.
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
        guard let gate = getenv("PLUGIN_SERVER_FIXTURE_GATE").map({ String(cString: $0) }) else {
            sleep(10)
            return RouteResponse(body: "unblocked\n")
        }
        let entered = open(gate + ".entered", O_WRONLY | O_APPEND | O_CREAT, 0o644)
        if entered >= 0 {
            _ = write(entered, "entered\n", 8)
            close(entered)
        }
        var checks = 0
        while access(gate, F_OK) != 0, checks < 10 * 60 * 20 {
            usleep(50_000)
            checks += 1
        }
        return RouteResponse(body: "unblocked\n")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(BlockingRoutePlugin.self) }
