/// Who answers each method of each path: the server's own routes first, then the plugins' routes in
/// turn, each refused if it would take a method of a path someone else answers already.
///
/// A route is judged on every method the server answers with it, not on its own only: `GET` is
/// answered for `HEAD` too (without the body), so `GET /x` and `HEAD /x` of two owners conflict; and
/// the server answers `OPTIONS` for every path it serves (204 and the methods in `Allow`), so a
/// plugin's `OPTIONS /x` conflicts with any route of another owner on `/x`, and the other way round.
/// Paths are compared as ``RouteSyntax/normalized(_:)`` has them.
struct RouteClaims {
    /// The owner of each method of each path, by normalized path.
    private(set) var owners: [String: [String: String]] = [:]

    /// The methods the server answers when a route of `method` is served.
    static func methodsAnswered(by method: String) -> [String] {
        method == "GET" ? ["GET", "HEAD"] : [method]
    }

    /// Takes `method` `path` for `owner` unconditionally (the server's own routes).
    mutating func take(method: String, path: String, by owner: String) {
        let path = RouteSyntax.normalized(path)
        for answered in Self.methodsAnswered(by: method) { owners[path, default: [:]][answered] = owner }
    }

    /// Takes `method` `path` for `owner` if no one else answers any of its methods on that path;
    /// else returns who does.
    mutating func claim(method: String, path: String, by owner: String) -> String? {
        let path = RouteSyntax.normalized(path)
        let onPath = owners[path] ?? [:]
        let answered = Self.methodsAnswered(by: method)
        // A second claim of one method, also by the same owner (two slots of one plugin), is refused.
        if let holder = answered.lazy.compactMap({ onPath[$0] }).first { return holder }
        // OPTIONS is answered by whoever owns it on the path, for every method served there.
        if method == "OPTIONS", let other = onPath.sorted(by: { $0.key < $1.key }).first(where: { $0.value != owner }) {
            return other.value
        }
        if let optionsOwner = onPath["OPTIONS"], optionsOwner != owner { return optionsOwner }
        take(method: method, path: path, by: owner)
        return nil
    }

    /// The methods each path is answered with, by normalized path.
    var methodsByPath: [String: Set<String>] {
        owners.mapValues { Set($0.keys) }
    }
}
