import Hummingbird
import PluginAPI
import RouteContracts
import Synchronization

/// The routes the plugins contributed, by `METHOD path`: set once the plugins are loaded, then read
/// by every request. Each plugin's handlers run on threads of that plugin's own (``HandlerThreads``).
final class PluginRoutes: Sendable {
    /// A plugin's route: its handler, and the threads it runs on.
    struct Route: Sendable {
        let handler: any RouteHandler
        /// The slot's origin: the plugin's name.
        let plugin: String
        let threads: HandlerThreads
    }

    /// How long a request waits for a plugin's handler before it is answered 503.
    let handlerTimeout: Duration
    /// Threads per plugin: as many of its requests may block at once before the next ones wait.
    private let threadsPerPlugin: Int
    private let table = Mutex<[String: Route]?>(nil)

    init(handlerTimeout: Duration, threadsPerPlugin: Int = 4) {
        self.handlerTimeout = handlerTimeout
        self.threadsPerPlugin = threadsPerPlugin
    }

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
        var routes: [String: Route] = [:]
        var threads: [String: HandlerThreads] = [:]
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
            let pluginThreads = threads[plugin] ?? HandlerThreads(count: threadsPerPlugin, maxWaiting: 16 * threadsPerPlugin)
            threads[plugin] = pluginThreads
            routes[route] = Route(handler: handler, plugin: plugin, threads: pluginThreads)
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

    /// The route for `method` `path`; nil before the plugins are loaded, or if none has it.
    func route(method: String, path: String) -> Route?? {
        table.withLock { table in table.map { $0["\(method) \(path)"] } }
    }
}

/// Answers a request with the plugins' route for it, if there is one; else passes it on.
struct PluginRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: PluginRoutes

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        switch routes.route(method: request.method.rawValue, path: request.uri.path) {
        case let route??:
            switch await route.threads.call(route.handler, RouteRequest(request), timeout: routes.handlerTimeout) {
            case let .answered(response):
                return Response(response)
            case let .failed(error):
                throw error
            case .timedOut:
                context.logger.warning("plugin route timed out", metadata: [
                    "route": "\(request.method) \(request.uri.path)", "plugin": "\(route.plugin)",
                ])
                return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "plugin route timed out\n")))
            case .busy:
                context.logger.warning("plugin route busy: its threads are taken", metadata: [
                    "route": "\(request.method) \(request.uri.path)", "plugin": "\(route.plugin)",
                ])
                return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "plugin route busy\n")))
            }
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
