#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PluginAPI
import RouteContracts

/// Hands the server values it cannot send or serve, as a careless or hostile plugin does: routes that
/// answer status 1000 (which swift-http-types traps on), status 99, a `Content-Type` with a line break
/// (a header injected) or a control character, and one that throws an error whose text holds an
/// escape sequence; and routes whose method or path is not one (refused when installed).
/// `GET /fixture/fine` answers well. Only when PLUGIN_SERVER_FIXTURES is set (the tests set it): a
/// server started on the whole build folder, as the README shows, gets an empty plugin.
struct BadAnswersPlugin: Plugin {
    static let routes: [(key: ServiceLocatorEasyKey<any RouteHandler>, route: BadAnswerRoute)] =
        getenv("PLUGIN_SERVER_FIXTURES") == nil ? [] : [
            (RouteKeys.route("fixture-status-1000"), BadAnswerRoute(path: "/fixture/status-1000", status: 1000)),
            (RouteKeys.route("fixture-status-99"), BadAnswerRoute(path: "/fixture/status-99", status: 99)),
            (RouteKeys.route("fixture-content-type-crlf"),
             BadAnswerRoute(path: "/fixture/content-type-crlf", contentType: "text/plain\r\nSet-Cookie: injected=1")),
            (RouteKeys.route("fixture-content-type-nul"), BadAnswerRoute(path: "/fixture/content-type-nul", contentType: "text/plain\u{0}")),
            (RouteKeys.route("fixture-throws"), BadAnswerRoute(path: "/fixture/throws", throwing: true)),
            (RouteKeys.route("fixture-bad-method"), BadAnswerRoute(method: "GET /x HTTP/1.1\r\n", path: "/fixture/bad-method")),
            (RouteKeys.route("fixture-bad-path"), BadAnswerRoute(path: "fixture/no-slash")),
            (RouteKeys.route("fixture-fine"), BadAnswerRoute(path: "/fixture/fine")),
        ]
    static let metadata = PluginMetadata(name: "fixture-bad-answers", version: "1.0.0", provides: routes.map(\.key))
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        for (key, route) in Self.routes {
            try registrar.addService(key: key, service: route)
        }
    }
}

/// An error whose text would clear a terminal it is printed on.
struct ClearingError: Error, CustomStringConvertible {
    var description: String { "fixture error \u{1B}[2J" }
}

/// Answers `method` `path` with `status`, `contentType` and "fixture-bad-answers", or throws.
struct BadAnswerRoute: RouteHandler {
    var method = "GET"
    let path: String
    var status = 200
    var contentType = "text/plain; charset=utf-8"
    var throwing = false

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        if throwing { throw ClearingError() }
        return RouteResponse(status: status, contentType: contentType, body: "fixture-bad-answers\n")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(BadAnswersPlugin.self) }
