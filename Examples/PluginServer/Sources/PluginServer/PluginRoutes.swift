import Foundation
import HostKit
import Hummingbird
import PluginAPI
import RouteContracts

/// The routes the plugins contributed, by `METHOD path`: installed once the plugins are loaded and
/// again after each reload, read by every request. Each plugin's handlers run on threads of that
/// plugin's own (``HandlerThreads``).
final class PluginRoutes: @unchecked Sendable {
    // @unchecked: `table` and `threads` are only touched with `lock` held; the rest is immutable.

    /// A plugin's route: its handler, the locator it was taken from, and the threads it runs on.
    struct Route: Sendable {
        let handler: any RouteHandler
        /// The slot that holds `handler`.
        let slot: String
        /// The slot's origin: the plugin's name.
        let plugin: String
        let threads: HandlerThreads
        /// The locator `handler` was taken from. Weak: a reload waits for the old locator's last
        /// holder before it stops the old version, and it returns (and the table is installed again)
        /// only after that; a table that held it would hold up every upgrade for the whole drain and
        /// then serve a stopped version. The request holds the locator instead (``Serving``).
        weak let locator: ServiceLocator?
    }

    /// What one request is served with: the handler and the locator it was taken from, which the
    /// request holds until it is answered, so that the version it began on is not stopped under it.
    struct Serving: Sendable {
        let handler: any RouteHandler
        let plugin: String
        let threads: HandlerThreads
        let locator: ServiceLocator
    }

    /// The host whose current locator the routes are taken from.
    let host: PluginHost
    /// How long a request waits for a plugin's handler before it is answered 503.
    let handlerTimeout: Duration
    /// Threads per plugin: as many of its requests may block at once before the next ones wait.
    private let threadsPerPlugin: Int
    /// Guards `table` and `threads`. Not Synchronization's Mutex, which ThreadSanitizer does not see
    /// through on Linux (ARCHITECTURE.md, "Locks, and why none is a Mutex").
    private let lock = NSLock()
    /// Held for a whole install, so that two installs cannot put an older locator's routes last.
    private let installing = NSLock()
    /// The routes; nil until the first install. Swapped whole, so a request sees one install's table.
    private var table: [String: Route]?
    /// The methods each path is served with, by the server or a plugin, as the last install left
    /// them; by path with its empty segments dropped. `HEAD` wherever `GET` is.
    private var methodsByPath: [String: Set<String>] = [:]
    /// Each plugin's threads, by plugin name, as the last install left them.
    private var threads: [String: HandlerThreads] = [:]

    init(host: PluginHost, handlerTimeout: Duration, threadsPerPlugin: Int = 4) {
        self.host = host
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

    /// What ``install(serverRoutes:renewing:)`` did.
    struct Installation {
        /// `METHOD path` of each route installed, sorted.
        var routes: [String] = []
        var refused: [Refusal] = []
        /// Route slots whose handler could not be made, with the error.
        var unusable: [(slot: String, plugin: String, error: any Error)] = []
    }

    /// Takes every slot of the host's current locator that holds a route handler, except a route
    /// `serverRoutes` (`METHOD path`, the server's own) or an earlier slot has, and swaps the table in.
    /// The locator lists its slots sorted by key, so of two plugins claiming one route, the one whose
    /// slot key sorts first keeps it, whatever the order of the files. Paths are compared as the
    /// server's router matches them, empty segments ignored: `GET /plugins/` is `GET /plugins`.
    ///
    /// A plugin keeps its threads from one install to the next, unless it is in `renewing` (it was
    /// upgraded or restarted): then its new version gets threads of its own, and the old ones are
    /// retired, to end once the calls begun on them are done. So a version whose handlers are stuck
    /// leaves the threads stuck with it behind, and 100 upgrades leave no more threads than one.
    func install(serverRoutes: [String], renewing: Set<String> = []) -> Installation {
        installing.lock()
        defer { installing.unlock() }
        let locator = host.locator
        let handlerType = String(reflecting: (any RouteHandler).self)
        var servedBy: [String: String] = [:]
        for route in serverRoutes { servedBy[Self.normalized(route)] = "the server" }
        var routes: [String: Route] = [:]
        var kept = lock.withLock { threads.filter { !renewing.contains($0.key) } }
        var pluginThreads: [String: HandlerThreads] = [:]
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
            let threads = pluginThreads[plugin] ?? kept.removeValue(forKey: plugin)
                ?? HandlerThreads(count: threadsPerPlugin, maxWaiting: 16 * threadsPerPlugin)
            pluginThreads[plugin] = threads
            routes[route] = Route(handler: handler, slot: slot.key, plugin: plugin, threads: threads, locator: locator)
        }
        var methods: [String: Set<String>] = [:]
        for route in servedBy.keys {
            let method = String(route.prefix { $0 != " " })
            let path = String(route.dropFirst(method.count + 1))
            methods[path, default: []].formUnion(method == "GET" ? ["GET", "HEAD"] : [method])
        }
        let retiring = lock.withLock {
            table = routes
            methodsByPath = methods
            defer { threads = pluginThreads }
            return threads.values.filter { old in !pluginThreads.values.contains { $0 === old } }
        }
        retiring.forEach { $0.retire() }
        installation.routes = routes.keys.sorted()
        return installation
    }

    /// `METHOD path` with the path's empty segments dropped.
    private static func normalized(_ route: String) -> String {
        let method = route.prefix { $0 != " " }
        let segments = route.dropFirst(method.count + 1).split(separator: "/")
        return "\(method) /\(segments.joined(separator: "/"))"
    }

    /// The methods `path` is served with, sorted (`HEAD` wherever `GET` is); empty for a path nobody
    /// serves.
    func methods(serving path: String) -> [String] {
        let path = Self.normalized("GET \(path)").dropFirst("GET ".count)
        return lock.withLock { methodsByPath[String(path)] ?? [] }.sorted()
    }

    /// What serves `method` `path`: nil before the first install, `.some(nil)` if no plugin serves it.
    ///
    /// The host's current locator is taken first, and the request holds it until it is answered. A
    /// route installed from that locator is served as installed; one installed before a reload
    /// swapped the locator (its table is installed again once the reload is done) is served with what
    /// the current locator holds in its slot now, if that still serves this route: the new version
    /// of an upgraded plugin, none of a withdrawn one.
    func serving(method: String, path: String) -> Serving?? {
        let locator = host.locator
        let key = "\(method) \(path)"
        guard let route = lock.withLock({ table.map { $0[key] } }) else { return nil }
        guard let route else { return .some(nil) }
        if route.locator === locator {
            return Serving(handler: route.handler, plugin: route.plugin, threads: route.threads, locator: locator)
        }
        guard let handler = try? locator.tryService(key: ServiceLocatorEasyKey<any RouteHandler>(name: route.slot)),
              Self.normalized("\(handler.method) \(handler.path)") == Self.normalized(key) else { return .some(nil) }
        return Serving(handler: handler, plugin: route.plugin, threads: route.threads, locator: locator)
    }
}

/// Answers a request with the plugins' route for it, if there is one (a HEAD request with its GET route,
/// without the body); a path the server or a plugin serves with other methods only with 405 and an
/// `Allow` header naming them (an OPTIONS request with 204 and that header); else passes it on.
struct PluginRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: PluginRoutes

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let method = request.method.rawValue
        var found = routes.serving(method: method, path: request.uri.path)
        // HEAD is GET without the body, as the router does for the server's own routes.
        if method == "HEAD", case .some(nil) = found {
            found = routes.serving(method: "GET", path: request.uri.path)
        }
        switch found {
        case let route??:
            // The body is read here, at most the context's upload limit (a longer one is answered 413).
            let pluginRequest = try await RouteRequest(request, bodyLimit: context.maxUploadSize)
            switch await route.threads.call(route.handler, pluginRequest, holding: route.locator,
                                            timeout: routes.handlerTimeout) {
            case let .answered(response):
                return method == "HEAD" ? Response(response).createHeadResponse() : Response(response)
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
            // A path served with other methods only: 405, and the methods it is served with (OPTIONS
            // among them: it is answered with that list).
            let served = routes.methods(serving: request.uri.path)
            let allowed = served.isEmpty || served.contains("OPTIONS") ? served : served + ["OPTIONS"]
            if method == "OPTIONS", !allowed.isEmpty {
                return Response(status: .noContent, headers: [.allow: allowed.joined(separator: ", ")])
            }
            guard allowed.isEmpty || allowed.contains(method) else {
                return Response(status: .methodNotAllowed, headers: [.allow: allowed.joined(separator: ", ")],
                                body: .init(byteBuffer: ByteBuffer(string: "method not allowed\n")))
            }
            return try await next(request, context)
        case nil:
            return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "plugins loading\n")))
        }
    }
}

extension RouteRequest {
    /// The plain-value request a route plugin sees, with the body read up to `bodyLimit` bytes (more
    /// throws the error Hummingbird answers 413).
    init(_ request: Request, bodyLimit: Int) async throws {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        let headers = RouteHeaders(request.headers.map { (name: $0.name.rawName, value: $0.value) })
        let body = try await request.body.collect(upTo: bodyLimit)
        self.init(method: request.method.rawValue, path: request.uri.path, query: query, headers: headers,
                  body: Array(buffer: body))
    }
}

extension Response {
    /// The HTTP response for a route plugin's answer.
    init(_ response: RouteResponse) {
        self.init(status: .init(code: response.status), headers: [.contentType: response.contentType],
                  body: .init(byteBuffer: ByteBuffer(string: response.body)))
    }
}
