internal import DynamicLoading
import Glibc

/// A check of the operator's that every file a load maps must pass, beside the host's own (trust,
/// ELF headers, toolchain, libraries): a list of the files' digests (``DigestAllowlist``), say.
/// Set it as ``PluginDiscovery/fileCheck``.
///
/// It is shown each file before the loader maps it: each plugin file, and each library a plugin
/// brings that the loader would newly map (one beside the plugin, or one found by `LD_LIBRARY_PATH`
/// or a run path; a library the process has loaded already maps nothing new). What it reads is the
/// very file the loader maps: the copy the load made in its folder of copies, which only the host's
/// user can write, so nothing done to the original after the check reaches the image. A file a
/// load maps is checked at that load only: an unchanged plugin kept over a reload is not shown again.
///
/// A refusal keeps the plugin out (for a library, the plugin that brings it), with the check's
/// words in ``PluginLoadError/fileRefused(path:reason:)`` or
/// ``PluginLoadError/libraryRefused(path:library:file:reason:)``; the host and the other plugins
/// carry on.
public protocol PluginFileCheck: Sendable {
    /// Called as each load and each reload begins, before it reads any file: the time to read again
    /// what the check relies on (its list). A throw refuses every file that load would newly map,
    /// with the error's description; the plugins already running are kept.
    func loadBegins() throws

    /// Throws if `file` may not be mapped; the error's description says why (escaped when printed).
    /// Called on the loading thread, one file at a time.
    func check(_ file: PluginFile) throws
}

extension PluginFileCheck {
    /// Nothing to read again.
    public func loadBegins() throws {}
}

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

extension FileCheck {
    /// The floor's form of `check`, or, if `unusable` says why the check could not begin this load,
    /// a refusal of every file with those words.
    static func of(_ check: any PluginFileCheck, unusable: String?) -> FileCheck {
        FileCheck { path, neededBy, descriptor in
            if let unusable { return unusable }
            return PluginFile.refusal(by: check, path: path, neededBy: neededBy, descriptor: descriptor)
        }
    }
}
