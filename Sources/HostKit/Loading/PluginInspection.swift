/// What ``PluginHost/inspect(_:discovery:probe:)`` found in a file.
public struct PluginInspection: Sendable {
    /// The real path of the file, or the path as given if it could not be resolved.
    public let path: String
    /// What the plugin says of itself (metadata, the libraries it was built against). Also for a
    /// plugin the host refuses for its library versions, when its descriptor could be read safely.
    public let plugin: LoadedPlugin?
    /// Why the host would not load the file, or nil if it would.
    public let refusal: PluginLoadError?

    /// The plugin, or the reason the host would refuse it.
    public func get() throws(PluginLoadError) -> LoadedPlugin {
        if let refusal { throw refusal }
        guard let plugin else { throw .notFound(path: path) }
        return plugin
    }
}

extension PluginInspection {
    /// The same file's outcome, for the file found at `candidate`'s path: moved or linked there since
    /// it was opened, it is the same plugin under its new path.
    func found(at candidate: PluginCandidate) -> PluginInspection {
        guard candidate.realPath != path else { return self }
        return PluginInspection(path: candidate.realPath, plugin: plugin?.moved(to: candidate), refusal: refusal)
    }
}
