import HostKit
import Hummingbird
import Logging
import RouteContracts

/// Answers a request with the plugins' route for it, if there is one (a HEAD request with its GET route,
/// without the body); a path the server or a plugin serves with other methods only with 405 and an
/// `Allow` header naming them (an OPTIONS request with 204 and that header); else passes it on.
///
/// The plugin's handler runs on its plugin's threads (``HandlerThreads``); what it answers is checked
/// here (``PluginResponse``): an answer the server cannot send, or an error thrown, is answered 500 and
/// logged, a handler that does not answer in time 503.
struct PluginRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: PluginRoutes

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let method = request.method.rawValue
        var found = routes.serving(method: method, path: request.uri.path)
        // HEAD is GET without the body, as the router does for the server's own routes.
        var servedMethod = method
        if method == "HEAD", case .some(nil) = found {
            found = routes.serving(method: "GET", path: request.uri.path)
            servedMethod = "GET"
        }
        switch found {
        case let route??:
            // The body is read here, at most the context's upload limit (a longer one is answered 413).
            let pluginRequest = try await RouteRequest(request, bodyLimit: context.maxUploadSize)
            let key = PluginRoutes.Key(method: servedMethod, path: RouteSyntax.normalized(request.uri.path))
            let outcome = await route.threads.run(holding: route.locator) { () async throws -> RouteResponse? in
                guard let handler = await PluginRoutes.handler(for: route, key: key) else { return nil }
                return try await handler.handle(pluginRequest)
            }
            let answer: RouteResponse
            switch outcome {
            case let .answered(response?):
                answer = response
            case .answered(nil):
                // Withdrawn by a reload under way, or changed by an upgrade: as if never served.
                return try await notServed(request, context: context, next: next)
            case let .failed(problem):
                return failed(request, route, context, log: "plugin route failed", ["error": "\(TerminalText.escaped(problem))"])
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
            switch PluginResponse.make(answer) {
            case let .success(response):
                return method == "HEAD" ? response.createHeadResponse() : response
            case let .failure(invalid):
                return failed(request, route, context, log: "plugin route answered what cannot be sent", ["problem": "\(invalid)"])
            }
        case .some(nil):
            return try await notServed(request, context: context, next: next)
        case nil:
            // The plugins are loading: the server's own routes answer (``PluginRoutes/announce(serverRoutes:)``).
            if routes.methods(serving: request.uri.path).contains(method) { return try await next(request, context) }
            return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "plugins loading\n")))
        }
    }

    /// 500, logged as an error with `message`, the route, the plugin and `metadata`.
    private func failed(_ request: Request, _ route: PluginRoutes.Serving, _ context: Context, log message: Logger.Message,
                        _ metadata: Logger.Metadata) -> Response {
        context.logger.error(message, metadata: metadata.merging([
            "route": "\(request.method) \(TerminalText.escaped(request.uri.path))", "plugin": "\(route.plugin)",
        ]) { $1 })
        return Response(status: .internalServerError, body: .init(byteBuffer: ByteBuffer(string: "plugin route failed\n")))
    }

    /// A request no plugin route serves: a path served with other methods only is answered 405, and
    /// the methods it is served with (OPTIONS among them: it is answered with that list); else the
    /// server's own routes have it.
    private func notServed(_ request: Request, context: Context,
                           next: (Request, Context) async throws -> Response) async throws -> Response {
        let method = request.method.rawValue
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
    /// The HTTP response for an answer of the server's own code (the compiled-in route); a plugin's
    /// answer is checked first (``PluginResponse``).
    init(_ response: RouteResponse) {
        self.init(status: .init(code: response.status), headers: [.contentType: response.contentType],
                  body: .init(byteBuffer: ByteBuffer(string: response.body)))
    }
}
