import Hummingbird
import PluginAPI
import RouteContracts
import Synchronization

/// The routes the plugins contributed, by `METHOD path`: set once the plugins are loaded, then read
/// by every request.
final class PluginRoutes: Sendable {
    private let table = Mutex<[String: any RouteHandler]?>(nil)

    /// Takes every slot of the locator that holds a route handler.
    func install(from locator: ServiceLocator) -> [String] {
        let handlerType = String(reflecting: (any RouteHandler).self)
        var routes: [String: any RouteHandler] = [:]
        for slot in locator.slots where slot.serviceType == handlerType {
            guard let handler = locator.getService(key: ServiceLocatorEasyKey<any RouteHandler>(name: slot.key)) else { continue }
            routes["\(handler.method) \(handler.path)"] = handler
        }
        table.withLock { $0 = routes }
        return routes.keys.sorted()
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
