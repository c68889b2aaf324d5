import RouteContracts

/// `POST /echo` answers the request's body with its `Content-Type`; `POST /echo?header=NAME` answers
/// the values of the request's header fields named NAME instead, one per line. A route that reads
/// what a request carries besides its path and query (RouteContracts 1.1).
struct EchoRoute: RouteHandler {
    let method = "POST"
    let path = "/echo"

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        if let name = request.query["header"] {
            let values = request.headers.values(named: name)
            return RouteResponse(body: values.map { "\($0)\n" }.joined())
        }
        guard let text = request.bodyText else {
            return RouteResponse(status: 415, body: "the body is not UTF-8 text\n")
        }
        return RouteResponse(contentType: request.headers["content-type"] ?? "text/plain; charset=utf-8", body: text)
    }
}
