import RouteContracts

/// `GET /hello?name=Ada` -> `Hello, Ada!`; `delay=MS` answers after that many milliseconds (so a test
/// can have a request in flight during a shutdown).
public struct HelloRoute: RouteHandler {
    public let method = "GET"
    public let path: String

    /// The route at `path`.
    public init(path: String = "/hello") {
        self.path = path
    }

    public func handle(_ request: RouteRequest) async throws -> RouteResponse {
        if let delay = request.query["delay"].flatMap(Int.init), delay > 0 {
            try await Task.sleep(for: .milliseconds(min(delay, 10_000)))
        }
        return RouteResponse(body: "Hello, \(request.query["name"] ?? "world")!\n")
    }
}
