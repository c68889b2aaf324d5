/// What the host does with a path's text: made absolute, cut to its folder, resolved to the file it
/// names. One place for each, so that discovery, the library search and reports agree.
package enum Paths {
    /// `path` from the current folder if it is relative (`getcwd(3)`'s bytes, so a current folder of
    /// `/` gives `/name`, not `//name`); as it is if it is absolute, or if the current folder cannot
    /// be read.
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let current = (try? Posix.currentDirectory()).map({ String(decoding: $0, as: UTF8.self) }) else { return path }
        return current == "/" ? "/" + path : current + "/" + path
    }

    /// The folder of the file `path` (empty for a name without one).
    package static func folder(of path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// The real path of `path` (`realpath(3)`), or `nil` if it has none.
    package static func realPath(_ path: String) -> String? {
        (try? Posix.realpath(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `path` (absolute) without `.`, `..` and repeated slashes, as written: a copy's folders hold no
    /// symlink, so the kernel resolves a `..` in a path into the folder just so (and a digest list's
    /// entries are compared as written).
    package static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
