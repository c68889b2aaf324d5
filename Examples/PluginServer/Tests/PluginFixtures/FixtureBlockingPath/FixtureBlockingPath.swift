#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PluginAPI
import RouteContracts

/// Serves a route whose `path` property blocks its thread for 15 s, as careless plugin code does (a
/// computed property that reads a file, asks a server, takes a lock): the server reads it when it
/// installs the routes. Only when PLUGIN_SERVER_FIXTURES is set (the tests set it): a server started
/// on the whole build folder, as the README shows, gets an empty plugin.
struct BlockingPathPlugin: Plugin {
    static let active = getenv("PLUGIN_SERVER_FIXTURES") != nil
    static let route = RouteKeys.route("blocking-path")
    static let metadata = PluginMetadata(name: "fixture-blocking-path", version: "1.0.0", provides: active ? [route] : [])
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        if Self.active {
            try registrar.addService(key: Self.route, service: BlockingPathRoute())
        }
    }
}

struct BlockingPathRoute: RouteHandler {
    let method = "GET"

    var path: String {
        sleep(15)
        return "/fixture/blocking-path"
    }

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        RouteResponse(body: "blocking path\n")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(BlockingPathPlugin.self) }
