internal import DynamicLoading
import Foundation

/// The files an operator means to deploy, by their SHA-256 digests, in the format `sha256sum`
/// writes and release tools publish (`SHA256SUMS`): each line a digest in hexadecimal, two spaces
/// (or a space and `*`) and a file's path (lines may end in CRLF, as `sha256sum -c` reads them).
/// A ``PluginFileCheck``: a file a load would map that the
/// list does not name, or names with another digest, is refused, naming the file and its digest.
///
/// A relative path in the list is read from the list's folder (write it with
/// `cd plugins && sha256sum *.so > SHA256SUMS`); an absolute one as it is. A file matches an entry
/// by the path it is known by or by its real path, and the entry by its path or its real path (an
/// entry with `..` by its real path only: the kernel's `..` follows the symlinks before it). The
/// list covers every file a load maps: each plugin and each library a plugin brings (libraries the
/// process has loaded already map nothing new). It is read when made, and again as each load and
/// reload begins: a new list is in force from the next `SIGHUP`. The list must be a regular file of
/// at most 16 MiB (a pipe would block each load) that only the host's user or root can change, on
/// such a path, as plugin files must.
///
/// ```swift
/// let discovery = PluginDiscovery(fileCheck: try DigestAllowlist(contentsOf: "/srv/plugins/SHA256SUMS"))
/// ```
public final class DigestAllowlist: PluginFileCheck {
    /// The list's path, as given (made absolute).
    public let path: String
    /// How a file's SHA-256 digest is computed: HostKit's own unless another is given.
    private let sha256: @Sendable (PluginFile) throws -> [UInt8]
    /// The digest each listed path must have, by absolute path (and by real path), in bytes: a name
    /// is its bytes, which `String` would compare by canonical equivalence.
    private let digests: Lock<[[UInt8]: [UInt8]]>

    /// The list at `path`, read now; throws ``Unusable`` if it cannot be read, is not trusted, or
    /// has a line that is not a digest and a path. `sha256` computes a file's digest
    /// (``PluginFile/sha256()`` unless another is given: swift-crypto's, say).
    public init(contentsOf path: String,
                sha256: @escaping @Sendable (PluginFile) throws -> [UInt8] = { try $0.sha256() }) throws {
        self.path = Paths.absolute(path)
        self.sha256 = sha256
        digests = Lock(try Self.read(self.path))
    }

    /// Reads the list again.
    public func loadBegins() throws {
        let read = try Self.read(path)
        digests.withLock { $0 = read }
    }

    /// Throws ``Refusal`` unless the list names `file` with its digest.
    public func check(_ file: PluginFile) throws {
        let digest = try sha256(file)
        let names = ([file.path] + (Paths.realPath(file.path).map { [$0] } ?? [])).map { Array($0.utf8) }
        let listed = digests.withLock { digests in names.compactMap { digests[$0] }.first }
        guard let listed else {
            throw Refusal(description: "it is not in the digest list \(path); its SHA-256 is \(SHA256.hex(digest))")
        }
        guard listed == digest else {
            throw Refusal(description: "its SHA-256 is \(SHA256.hex(digest)), but the digest list \(path) says "
                          + "\(SHA256.hex(listed))")
        }
    }

    /// Why a file was refused.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Why the list cannot be used.
    public struct Unusable: Error, CustomStringConvertible {
        /// The list's path.
        public let path: String
        /// What is wrong with it (a line's number, for a line that is no entry).
        public let reason: String
        public var description: String { "the digest list \(path) \(reason)" }
    }

    /// The entries of the list at `path`, by absolute path and by real path.
    private static func read(_ path: String) throws(Unusable) -> [[UInt8]: [UInt8]] {
        let unusable = { (reason: String) in Unusable(path: path, reason: reason) }
        guard let text = String(validating: try contents(path), as: UTF8.self) else { throw unusable("is not UTF-8 text") }
        let folder = Paths.folder(of: path)
        var digests: [[UInt8]: [UInt8]] = [:]
        // Split at each "\n" byte (Swift takes "\r\n" for one character); a line's one "\r" before it
        // goes, as `sha256sum -c` reads a list written on Windows.
        for (index, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let line = Substring(String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes, as: UTF8.self))
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") { continue }
            guard let (digest, name) = entry(line) else {
                throw unusable("has a line that is not a SHA-256 digest and a file (line \(index + 1)): "
                               + "write it with sha256sum")
            }
            let written = name.hasPrefix("/") ? name : folder + "/" + name
            // A `..` is the kernel's, after the symlinks before it, as `sha256sum` read the file:
            // the path as written stands for it only without one.
            let asWritten = written.split(separator: "/").contains("..") ? [] : [Paths.normalized(written)]
            for key in Set((asWritten + (Paths.realPath(written).map { [$0] } ?? [])).map { Array($0.utf8) }) {
                if let other = digests[key], other != digest {
                    throw unusable("names \(String(decoding: key, as: UTF8.self)) twice, with two digests (line \(index + 1))")
                }
                digests[key] = digest
            }
        }
        return digests
    }

    /// The most a list may hold: a list of a hundred thousand files is a tenth of it.
    private static let largest = 16 << 20

    /// The bytes of the list at `path`: a trusted regular file of at most ``largest`` bytes (``OperatorFile``).
    private static func contents(_ path: String) throws(Unusable) -> [UInt8] {
        do {
            return try OperatorFile.bytes(at: path, largest: largest,
                                          tooLarge: "is larger than \(largest >> 20) MiB, more than any list of digests needs")
        } catch {
            throw Unusable(path: path, reason: error.reason)
        }
    }

    /// The digest and path of one line as `sha256sum` writes it: 64 hexadecimal digits, a space, a
    /// space or `*` (binary mode), the path; a line that starts with `\` has `\\`, `\n` and `\r` in its path.
    private static func entry(_ line: Substring) -> (digest: [UInt8], name: String)? {
        var line = line
        let escaped = line.hasPrefix("\\")
        if escaped { line = line.dropFirst() }
        let hex = Array(line.utf8.prefix(64))
        let rest = line.utf8.dropFirst(64)
        guard hex.count == 64, rest.count > 2, rest.first == UInt8(ascii: " "),
              [UInt8(ascii: " "), UInt8(ascii: "*")].contains(rest.dropFirst().first) else { return nil }
        var digest: [UInt8] = []
        for pair in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: hex[pair ..< pair + 2], as: UTF8.self), radix: 16) else { return nil }
            digest.append(byte)
        }
        var name = String(decoding: rest.dropFirst(2), as: UTF8.self)
        if escaped { name = unescaped(name) }
        return name.isEmpty ? nil : (digest, name)
    }

    /// `name` with `sha256sum`'s escapes (`\\`, `\n`, and since coreutils 9 `\r`) undone.
    /// Byte by byte: a `\n` before a combining mark is one `Character` with it.
    private static func unescaped(_ name: String) -> String {
        var result: [UInt8] = [], bytes = name.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "\\") else { result.append(byte); continue }
            switch bytes.next() {
            case UInt8(ascii: "n"): result.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "r"): result.append(UInt8(ascii: "\r"))
            case let other?: result.append(other)
            case nil: result.append(UInt8(ascii: "\\"))
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
