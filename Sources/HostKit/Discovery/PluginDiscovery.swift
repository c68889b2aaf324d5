import Glibc

/// Turns sources into candidate files, each once, and says what was wrong with the rest.
public struct PluginDiscovery: Sendable {
    /// Accept files and folders that others than the host's user (or root) could change.
    public var allowUntrusted: Bool
    /// Accept plugins that another toolchain built than the host (their ELF `.comment` lines
    /// differ). Such a plugin may lay out Swift's and PluginAPI's types otherwise, and crash.
    public var allowOtherCompilers: Bool

    /// A discovery that refuses untrusted files unless `allowUntrusted`, and plugins another
    /// toolchain built unless `allowOtherCompilers`.
    public init(allowUntrusted: Bool = false, allowOtherCompilers: Bool = false) {
        self.allowUntrusted = allowUntrusted
        self.allowOtherCompilers = allowOtherCompilers
    }

    /// The candidates in the order of the sources, without duplicates, and the problems found.
    func discover(_ sources: [PluginSource]) -> (candidates: [PluginCandidate], problems: [PluginLoadError]) {
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
                add(candidate(path))
            case let .directory(path):
                scan(path).forEach(add)
            case let .searchPath(list):
                let entries = list.split(separator: ":")
                if entries.isEmpty { add(.failure(.emptySearchPath(list))) }
                for entry in entries { visit(.path(String(entry))) }
            }
        }
        sources.forEach(visit)
        return (candidates, problems)
    }

    /// One file given by the user.
    func candidate(_ path: String) -> Result<PluginCandidate, PluginLoadError> {
        let path = absolute(path)
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
        // Read once, here: the headers checked, the toolchain named, the libraries it links listed.
        let file: ELFCheck.Reading
        do {
            file = try ELFCheck.read(real)
        } catch {
            return .failure(error)
        }
        if !allowOtherCompilers, let mismatch = CompilerIdentity.mismatch(real, file) {
            // Another compiler's file that names no entry symbol is no plugin (a system library, say):
            // that is what is wrong with it, as the loader would find after `dlopen`.
            let isPlugin = file.symbols == nil || EntrySymbol(file.symbols) != .missing
            return .failure(isPlugin ? mismatch : .missingEntrySymbol(path: real, symbol: PluginHeader.Layout.entrySymbol))
        }
        return .success(PluginCandidate(path: path, realPath: real, allowUntrusted: allowUntrusted, dynamic: file.dynamic,
                                        identity: status.identity,
                                        entry: EntrySymbol(file.symbols)))
    }

    /// Every `*.so` in a directory, sorted by name.
    func scan(_ directory: String) -> [Result<PluginCandidate, PluginLoadError>] {
        let directory = absolute(directory)
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
        return names.sorted().map { candidate(base + $0) } + problems.map { .failure($0) }
    }

    private func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = (try? Posix.currentDirectory()).map({ String(decoding: $0, as: UTF8.self) }) else { return path }
        return cwd == "/" ? "/" + path : cwd + "/" + path
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
