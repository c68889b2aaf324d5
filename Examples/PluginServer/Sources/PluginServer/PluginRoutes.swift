import Hummingbird
import PluginAPI
import RouteContracts
import Synchronization

/// The routes the plugins contributed, by `METHOD path`: set once the plugins are loaded, then read
/// by every request.
final class PluginRoutes: Sendable {
    private let table = Mutex<[String: any RouteHandler]?>(nil)

    /// A route a plugin claimed that the server or another plugin serves already.
    struct Refusal {
        /// `METHOD path`, as the plugin's handler says.
        let route: String
        /// The slot of the refused handler, and its plugin.
        let slot: String, plugin: String
        /// The plugin that serves the route, or "the server".
        let servedBy: String
    }

    /// What ``install(from:serverRoutes:)`` did.
    struct Installation {
        /// `METHOD path` of each route installed, sorted.
        var routes: [String] = []
        var refused: [Refusal] = []
        /// Route slots whose handler could not be made, with the error.
        var unusable: [(slot: String, plugin: String, error: any Error)] = []
    }

    /// Takes every slot of the locator that holds a route handler, except a route `serverRoutes`
    /// (`METHOD path`, the server's own) or an earlier slot has. The locator lists its slots sorted by
    /// key, so of two plugins claiming one route, the one whose slot key sorts first keeps it, whatever
    /// the order of the files. Paths are compared as the server's router matches them, empty segments
    /// ignored: `GET /plugins/` is `GET /plugins`.
    func install(from locator: ServiceLocator, serverRoutes: [String]) -> Installation {
        let handlerType = String(reflecting: (any RouteHandler).self)
        var servedBy: [String: String] = [:]
        for route in serverRoutes { servedBy[Self.normalized(route)] = "the server" }
        var routes: [String: any RouteHandler] = [:]
        var installation = Installation()
        for slot in locator.slots where slot.serviceType == handlerType {
            let plugin = slot.origin ?? "(no plugin)"
            let handler: any RouteHandler
            do {
                handler = try locator.tryService(key: ServiceLocatorEasyKey<any RouteHandler>(name: slot.key))
            } catch {
                installation.unusable.append((slot.key, plugin, error))
                continue
            }
            let route = "\(handler.method) \(handler.path)"
            if let owner = servedBy[Self.normalized(route)] {
                installation.refused.append(Refusal(route: route, slot: slot.key, plugin: plugin, servedBy: owner))
                continue
            }
            servedBy[Self.normalized(route)] = plugin
            routes[route] = handler
        }
        table.withLock { $0 = routes }
        installation.routes = routes.keys.sorted()
        return installation
    }

    /// `METHOD path` with the path's empty segments dropped.
    private static func normalized(_ route: String) -> String {
        let method = route.prefix { $0 != " " }
        let segments = route.dropFirst(method.count + 1).split(separator: "/")
        return "\(method) /\(segments.joined(separator: "/"))"
    }

    /// The handler for `method` `path`; nil before the plugins are loaded, or if none has it.
    func handler(method: String, path: String) -> (any RouteHandler)?? {
        table.withLock { table in table.map { $0["\(method) \(path)"] } }
    }
}

/// Answers a request with the plugins' route for it, if there is one; else passes it on.
struct PluginRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: PluginRoutes

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        switch routes.handler(method: request.method.rawValue, path: request.uri.path) {
        case let handler??:
            return try await Response(handler.handle(RouteRequest(request)))
        case .some(nil):
            return try await next(request, context)
        case nil:
            return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "plugins loading\n")))
        }
    }
}

extension RouteRequest {
    /// The plain-value request a route plugin sees.
    init(_ request: Request) {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        self.init(method: request.method.rawValue, path: request.uri.path, query: query)
    }
}

extension Response {
    /// The HTTP response for a route plugin's answer.
    init(_ response: RouteResponse) {
        self.init(status: .init(code: response.status), headers: [.contentType: response.contentType],
                  body: .init(byteBuffer: ByteBuffer(string: response.body)))
    }
}
