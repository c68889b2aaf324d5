/// The files discovery has read and copied, by real path and identity: a later load that finds one
/// unchanged (an unchanged plugin at a reload, a contract library beside the plugins) does not copy
/// it and read it again.
enum CheckedFiles {
    private struct Key: Hashable {
        let real: String
        let identity: FileIdentity
    }

    private static let files = Lock<[Key: PluginCandidate]>([:])

    /// Remembers what discovery read of `candidate`'s file.
    static func remember(_ candidate: PluginCandidate) {
        guard let identity = candidate.identity else { return }
        files.withLock { $0[Key(real: candidate.realPath, identity: identity)] = candidate }
    }

    /// The candidate read before from the file at `real` with `identity`, if its copy is not needed
    /// again: a file that is no plugin (never mapped), or a plugin whose file was opened already
    /// (``PluginLoader`` knows what came of it). A plugin read but never opened (refused by a probe,
    /// say) is copied anew: its copy went with the load that made it.
    static func candidate(_ real: String, identity: FileIdentity) -> PluginCandidate? {
        guard let known = files.withLock({ $0[Key(real: real, identity: identity)] }) else { return nil }
        return known.entry != .function || PluginLoader.hasOpened(known) ? known : nil
    }
}
