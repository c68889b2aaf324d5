internal import DynamicLoading

/// The files discovery has read, by real path and identity: a later load that finds one unchanged
/// (an unchanged plugin at a reload, a contract library beside the plugins, a file refused for what
/// it is) does not copy it and read it again.
enum CheckedFiles {
    private struct Key: Hashable {
        let real: String
        let identity: FileIdentity
        /// Whether another toolchain's plugins were allowed when it was read.
        let otherCompilers: Bool
    }

    private static let files = Lock<[Key: Result<PluginCandidate, PluginLoadError>]>([:])
    /// The files opened (by the identity discovery read): the loader tells each as it opens it.
    private static let opened = Lock<Set<FileIdentity>>([])

    /// Remembers what discovery read of the file at `real` with `identity`: a candidate, or why the
    /// file is no candidate (for what its bytes are; not for its path, which is checked each time).
    static func remember(_ outcome: Result<PluginCandidate, PluginLoadError>, real: String, identity: FileIdentity,
                         otherCompilers: Bool) {
        files.withLock { $0[Key(real: real, identity: identity, otherCompilers: otherCompilers)] = outcome }
    }

    /// Notes that the file with `identity` was opened: the loader calls this as it opens one.
    static func markOpened(_ identity: FileIdentity) {
        _ = opened.withLock { $0.insert(identity) }
    }

    /// Whether `candidate`'s file (the identity discovery read) was opened before.
    static func wasOpened(_ candidate: PluginCandidate) -> Bool {
        guard let identity = candidate.identity else { return false }
        return opened.withLock { $0.contains(identity) }
    }

    /// What was read before of the file at `real` with `identity`, if its copy is not needed again: a
    /// file refused, a file that is no plugin (never mapped), or a plugin whose file was opened
    /// already (the loader knows what came of it). A plugin read but never opened (refused by
    /// a probe, say) is copied anew: its copy went with the load that made it.
    static func outcome(_ real: String, identity: FileIdentity,
                        otherCompilers: Bool) -> Result<PluginCandidate, PluginLoadError>? {
        switch files.withLock({ $0[Key(real: real, identity: identity, otherCompilers: otherCompilers)] }) {
        case let .success(known) where known.entry != .function || wasOpened(known): .success(known)
        case let .failure(refusal): .failure(refusal)
        default: nil
        }
    }
}
