/// What the server takes from a plugin as a route's method and path, and the one rule by which paths
/// are compared, for the server's own routes and the plugins' alike: empty segments do not count
/// (`/plugins/` and `//plugins` are `/plugins`), as the server's router matches its own routes.
enum RouteSyntax {
    /// Whether `method` is an HTTP method: a token (RFC 9110, 5.6.2), at most 32 bytes.
    static func isMethod(_ method: String) -> Bool {
        let bytes = method.utf8
        return !bytes.isEmpty && bytes.count <= 32 && bytes.allSatisfy(isTokenByte)
    }

    /// Whether `path` is a path the server can serve: `/` first, then at most 2,048 bytes of visible
    /// ASCII without `?` or `#` (a query is not part of a route).
    static func isPath(_ path: String) -> Bool {
        let bytes = path.utf8
        return bytes.first == UInt8(ascii: "/") && bytes.count <= 2_048
            && bytes.allSatisfy { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
    }

    /// `path` with its empty segments dropped: `/a//b/` is `/a/b`, `/` and `` are `/`. A path that is
    /// normal already (the usual request) is returned as it is, without a copy.
    static func normalized(_ path: String) -> String {
        var previousWasSlash = false
        var normal = true
        for byte in path.utf8 {
            let slash = byte == UInt8(ascii: "/")
            if slash && previousWasSlash { normal = false; break }
            previousWasSlash = slash
        }
        if normal && (path == "/" || (path.utf8.first == UInt8(ascii: "/") && !previousWasSlash)) { return path }
        return "/" + path.split(separator: "/").joined(separator: "/")
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
