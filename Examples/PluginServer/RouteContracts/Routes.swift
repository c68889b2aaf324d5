import PluginAPI

/// A request as a route plugin sees it: no web framework's type crosses the plugin boundary.
/// `Codable` (since 1.2), to cross a process as the argument of a ``DistributedRouteHandler``.
public struct RouteRequest: Sendable, Codable {
    /// `GET`, `POST`...
    public var method: String
    /// The path, without the query.
    public var path: String
    /// The query's parameters (the last value of a repeated one).
    public var query: [String: String]
    /// The header fields (since 1.1).
    public var headers: RouteHeaders
    /// The body's bytes, empty if there was none (since 1.1). The server reads at most its upload
    /// limit and answers a longer body 413 itself.
    public var body: [UInt8]

    /// A request for `method` and `path` with `query`, no header and no body.
    public init(method: String, path: String, query: [String: String] = [:]) {
        self.init(method: method, path: path, query: query, headers: RouteHeaders(), body: [])
    }

    /// A request for `method` and `path` with `query`, `headers` and `body` (since 1.1).
    public init(method: String, path: String, query: [String: String] = [:], headers: RouteHeaders, body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text, or nil if its bytes are not valid UTF-8 (since 1.1).
    public var bodyText: String? {
        String(validating: body, as: UTF8.self)
    }
}

/// What a route plugin answers. `Codable` (since 1.2), to cross a process.
public struct RouteResponse: Sendable, Codable {
    /// The HTTP status code.
    public var status: Int
    /// The `Content-Type` of `body`.
    public var contentType: String
    /// The body, as text.
    public var body: String

    /// A response with `body`, 200 and plain text unless told otherwise.
    public init(status: Int = 200, contentType: String = "text/plain; charset=utf-8", body: String) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// One route a plugin contributes: the server answers `method` `path` with ``handle(_:)``.
public protocol RouteHandler: Sendable {
    /// The HTTP method, such as `GET`.
    var method: String { get }
    /// The path, such as `/hello`.
    var path: String { get }
    /// Answers one request.
    func handle(_ request: RouteRequest) async throws -> RouteResponse
}

/// A service one plugin provides and a route of another uses: counts visits.
public protocol VisitCounter: Sendable {
    /// The next visit's number, from 1.
    func next() -> Int
}

/// The keys of the example's slots.
public enum RouteKeys {
    /// The slot of a route plugin's handler: the server serves every slot of this type.
    public static func route(_ name: String) -> ServiceLocatorEasyKey<any RouteHandler> {
        ServiceLocatorEasyKey(name: "route.\(name)")
    }

    /// The visit counter the counter plugin provides.
    public static let counter = ServiceLocatorEasyKey<any VisitCounter>(name: "example.counter")
}
