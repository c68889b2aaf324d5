internal import DynamicLoading

/// A file a load is about to map, as a ``PluginFileCheck`` is shown it.
public struct PluginFile: Sendable {
    /// The path the file is known by: the plugin's real path, or where the library was found.
    public let path: String
    /// For a library, the real path of the plugin that brings it; `nil` for a plugin file.
    public let neededBy: String?
    /// The open file the loader will map (valid while the check runs).
    private let opening: Opening

    init(path: String, neededBy: String?, descriptor: Int32) {
        self.path = path
        self.neededBy = neededBy
        opening = Opening(descriptor)
    }

    /// Hands `body` the file's bytes from its start, in order, in pieces of up to 64 KiB.
    /// Throws if the file cannot be read, or if called once its check has returned.
    public func read(_ body: ([UInt8]) throws -> Void) throws {
        try opening.read(body)
    }

    /// The file's SHA-256 digest (32 bytes), as `sha256sum` computes it.
    public func sha256() throws -> [UInt8] {
        var hash = SHA256()
        try read { hash.update($0) }
        return hash.finalize()
    }

    /// Runs `check` on the file opened as `descriptor`, and returns its refusal's words, escaped.
    static func refusal(by check: any PluginFileCheck, path: String, neededBy: String?, descriptor: Int32) -> String? {
        let file = PluginFile(path: path, neededBy: neededBy, descriptor: descriptor)
        defer { file.opening.end() }
        do {
            try check.check(file)
            return nil
        } catch {
            return TerminalText.escaped("\(error)")
        }
    }

    /// The descriptor a check reads, taken away when the check returns: a check that kept the file
    /// and read it later would read whatever the number names by then.
    private final class Opening: Sendable {
        private let descriptor: Lock<Int32?>

        init(_ descriptor: Int32) {
            self.descriptor = Lock(descriptor)
        }

        func end() {
            descriptor.withLock { $0 = nil }
        }

        func read(_ body: ([UInt8]) throws -> Void) throws {
            guard let descriptor = descriptor.withLock({ $0 }) else { throw ReadAfterCheck() }
            var offset = 0
            while true {
                let piece = try Posix.pread(descriptor, offset: offset, count: 1 << 16)
                if piece.isEmpty { return }
                try body(piece)
                offset += piece.count
            }
        }
    }

    /// A ``read(_:)`` after the check that was handed the file returned.
    private struct ReadAfterCheck: Error, CustomStringConvertible {
        var description: String { "a plugin file was read after its check returned" }
    }
}
