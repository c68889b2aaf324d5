internal import DynamicLoading
import Glibc

/// Turns sources into candidate files, each once, and says what was wrong with the rest.
public struct PluginDiscovery: Sendable {
    /// Accept files and folders that others than the host's user (or root) could change.
    public var allowUntrusted: Bool
    /// Accept plugins that another toolchain built than the host (their ELF `.comment` lines
    /// differ). Such a plugin may lay out Swift's and PluginAPI's types otherwise, and crash.
    public var allowOtherCompilers: Bool
    /// The folder in which each load makes a private folder for the copies of the files it maps
    /// (the plugins and the libraries they bring are checked and mapped as copies, so that nothing
    /// done to a file after its check reaches the code that runs); `nil` for `TMPDIR`, or `/tmp`.
    /// It must be on a file system that allows mapping code (not mounted `noexec`).
    public var shadowFolder: String?
    /// The operator's check of every file a load maps, beside the host's own (``DigestAllowlist``,
    /// say); `nil` for none. A child process of the host (a probe, a plugin's own process) checks
    /// with the discovery its program gives it: give it the same check.
    public var fileCheck: (any PluginFileCheck)?
    /// Whether ``shadowFolder`` is a folder the host made for this process, whose path the host
    /// checked: a sandboxed plugin's process, which in its user namespace sees the owners of the
    /// folders above it (root's, for one) as nobody.
    var shadowFolderCheckedByHost = false

    /// A discovery that refuses untrusted files unless `allowUntrusted`, and plugins another
    /// toolchain built unless `allowOtherCompilers`, copies the files it maps into a folder made
    /// in `shadowFolder` (`TMPDIR` or `/tmp` if `nil`), and maps only files `fileCheck` accepts.
    public init(allowUntrusted: Bool = false, allowOtherCompilers: Bool = false, shadowFolder: String? = nil,
                fileCheck: (any PluginFileCheck)? = nil) {
        self.allowUntrusted = allowUntrusted
        self.allowOtherCompilers = allowOtherCompilers
        self.shadowFolder = shadowFolder
        self.fileCheck = fileCheck
    }

    /// The candidates in the order of the sources, without duplicates, and the problems found; each
    /// file that may be mapped is copied into `shadow` and checked there, by `fileCheck` too.
    func discover(_ sources: [PluginSource], into shadow: ShadowFolder,
                  fileCheck: FileCheck?) -> (candidates: [PluginCandidate], problems: [PluginLoadError]) {
        var candidates: [PluginCandidate] = []
        var problems: [PluginLoadError] = []
        var seen: Set<String> = []
        func add(_ result: Result<PluginCandidate, PluginLoadError>) {
            switch result {
            case let .success(candidate):
                if seen.insert(candidate.realPath).inserted { candidates.append(candidate) }
            case let .failure(problem):
                if !problems.contains(problem) { problems.append(problem) }
            }
        }
        func visit(_ source: PluginSource) {
            switch source {
            case let .file(path):
                add(candidate(path, into: shadow, fileCheck: fileCheck))
            case let .directory(path):
                scan(path, into: shadow, fileCheck: fileCheck).forEach(add)
            case let .searchPath(list):
                let entries = list.split(separator: ":")
                if entries.isEmpty { add(.failure(.emptySearchPath(list))) }
                for entry in entries { visit(.path(String(entry))) }
            }
        }
        sources.forEach(visit)
        return (candidates, problems)
    }

    /// One file given by the user: trusted by its path, then copied into `shadow` from one opening of
    /// its real path, and the copy checked (``CheckedFiles``: a file read before, unchanged, is not
    /// copied again), a plugin's by `fileCheck` too.
    func candidate(_ path: String, into shadow: ShadowFolder, fileCheck: FileCheck?) -> Result<PluginCandidate, PluginLoadError> {
        let path = Paths.absolute(path)
        let real: String
        switch realPath(path) {
        case let .success(resolved): real = resolved
        case let .failure(problem): return .failure(problem)
        }
        guard let status = FileStatus(real) else { return .failure(.notFound(path: path)) }
        guard status.isRegularFile else {
            return .failure(.notARegularFile(path: real == path ? path : "\(path) -> \(real)", kind: status.kind))
        }
        // The path as given, every symlink on it followed: that covers the real path's folders too.
        if !allowUntrusted, let reason = PathTrust.problem(path) {
            return .failure(.untrusted(path: path, reason: reason))
        }
        let known = CheckedFiles.outcome(real, identity: status.identity, otherCompilers: allowOtherCompilers)
        let outcome = known ?? read(real, identity: status.identity, into: shadow, fileCheck: fileCheck)
        if known == nil {
            // What the bytes are is remembered; a copy that failed (a write in progress) is tried again,
            // and a file the operator's check refused is shown to it again at the next load.
            switch outcome {
            case .success, .failure(.notASharedLibrary):
                CheckedFiles.remember(outcome, real: real, identity: status.identity, otherCompilers: allowOtherCompilers)
            default: break
            }
        }
        // A file read at an earlier load names that load's folder of copies, gone now: this load's.
        return outcome.map { $0.found(at: path, allowUntrusted: allowUntrusted).copied(into: shadow) }
    }

    /// The file at the real path `real` (last seen with `identity`) as a candidate: its headers
    /// checked where it lies (a file that is no shared library is never copied: a huge one would fill
    /// the folder), then its bytes copied into `shadow` and the copy read; a plugin's copy (a file
    /// whose entry is a function: the one kind that is opened) is shown to `fileCheck` last.
    private func read(_ real: String, identity: FileIdentity, into shadow: ShadowFolder,
                      fileCheck: FileCheck?) -> Result<PluginCandidate, PluginLoadError> {
        // A library this process loaded already (the host's own PluginAPI, say) is never mapped
        // again: read where it is.
        var image = real, copied = identity
        if !LoadedObjects.contain(real) {
            do {
                try ELFCheck.validate(real)
            } catch {
                return .failure(PluginLoadError(error))
            }
            do {
                (image, copied) = try shadow.copy(real, as: real, expected: identity)
            } catch {
                return .failure(.unusablePath(path: real, reason: error.reason))
            }
        }
        // Read once, here: the headers checked, the toolchain named, the libraries it links listed.
        let file: ELFCheck.Reading
        do {
            file = try ELFCheck.read(image)
        } catch {
            return .failure(.notASharedLibrary(path: real, reason: error.reason))
        }
        if !allowOtherCompilers, let mismatch = CompilerIdentity.mismatch(real, file) {
            // Another compiler's file that names no entry symbol is no plugin (a system library, say):
            // that is what is wrong with it, as the loader would find after `dlopen`.
            let isPlugin = file.symbols == nil || EntrySymbol(file.symbols) != .missing
            return .failure(isPlugin ? mismatch : .missingEntrySymbol(path: real, symbol: EntrySymbol.name))
        }
        let entry = EntrySymbol(file.symbols)
        if let fileCheck, entry == .function, image != real, let reason = Self.refusal(of: image, as: real, by: fileCheck) {
            return .failure(.fileRefused(path: real, reason: reason))
        }
        return .success(PluginCandidate(path: real, realPath: real, image: image, shadowRoot: image == real ? nil : shadow.root,
                                        allowUntrusted: allowUntrusted, dynamic: file.dynamic, identity: copied, entry: entry,
                                        versionedLibrary: PluginCandidate.versionedLibrary(at: real, entry: entry, symbols: file.symbols)))
    }

    /// Why `fileCheck` refuses the copy `image` of the plugin file `real`, or `nil`.
    private static func refusal(of image: String, as real: String, by fileCheck: FileCheck) -> String? {
        let descriptor: Int32
        do {
            descriptor = try Posix.open(image, O_RDONLY | O_NOFOLLOW)
        } catch {
            return "its copy cannot be read: \(error.reason)"
        }
        defer { Posix.close(descriptor) }
        return fileCheck.refusal(real, nil, descriptor)
    }

    /// Every `*.so` in a directory, sorted by name.
    func scan(_ directory: String, into shadow: ShadowFolder, fileCheck: FileCheck?) -> [Result<PluginCandidate, PluginLoadError>] {
        let directory = Paths.absolute(directory)
        let real: String
        switch realPath(directory) {
        case let .success(resolved): real = resolved
        case let .failure(problem): return [.failure(problem)]
        }
        guard let status = FileStatus(real) else { return [.failure(.notFound(path: directory))] }
        guard status.isDirectory else { return [.failure(.notARegularFile(path: directory, kind: "not a directory"))] }
        if !allowUntrusted, let reason = PathTrust.problem(directory) {
            return [.failure(.untrusted(path: directory, reason: reason))]
        }
        let entries: [[UInt8]]
        do {
            entries = try Posix.directoryEntries(real)
        } catch {
            return [.failure(unreachable(directory, error))]
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        var names: [String] = []
        var problems: [PluginLoadError] = []
        for bytes in entries {
            guard bytes.count > 3, bytes.suffix(3).elementsEqual(".so".utf8) else { continue }
            // A name that is not UTF-8 has no String to reach it by: say so, rather than "no such file".
            if let name = String(validating: bytes, as: UTF8.self) {
                names.append(name)
            } else {
                problems.append(.unusablePath(path: base + TerminalText.escaped(bytes: bytes),
                                              reason: "the file name is not valid UTF-8; rename it to load it"))
            }
        }
        return names.sorted().map { candidate(base + $0, into: shadow, fileCheck: fileCheck) } + problems.map { .failure($0) }
    }

    /// The canonical path of `path`, or why there is none.
    private func realPath(_ path: String) -> Result<String, PluginLoadError> {
        let bytes: [UInt8]
        do {
            bytes = try Posix.realpath(path)
        } catch {
            return .failure(unreachable(path, error))
        }
        guard let real = String(validating: bytes, as: UTF8.self) else {
            return .failure(.unusablePath(path: "\(path) -> \(TerminalText.escaped(bytes: bytes))",
                                          reason: "its real path is not valid UTF-8; rename it to load it"))
        }
        return .success(real)
    }

    /// What is wrong with `path`, after `realpath` or `opendir` failed on it with `error`.
    private func unreachable(_ path: String, _ error: SystemCallError) -> PluginLoadError {
        switch error.code {
        case ENOENT, ENOTDIR: return .notFound(path: path)
        case ELOOP: return .notARegularFile(path: path, kind: "symlink loop")
        case ENAMETOOLONG:
            if let name = path.split(separator: "/").first(where: { $0.utf8.count > Int(NAME_MAX) }) {
                return .unusablePath(path: path, reason: "the name '\(name.prefix(40))…' is \(name.utf8.count) bytes long,"
                                     + " longer than the system allows (\(NAME_MAX) bytes)")
            }
            return .unusablePath(path: path, reason: "the path, or the real path its symlinks lead to, is longer"
                                 + " than the system allows (\(PATH_MAX) bytes)")
        default: return .unusablePath(path: path, reason: error.reason)
        }
    }
}
