import PluginAPI

/// A plugin file whose header checked out: its path and descriptor.
public struct LoadedPlugin: Sendable {
    /// The real path of the file.
    public let path: String
    /// The plugin's descriptor, read after its header and library versions checked out.
    let descriptor: PluginDescriptor
    /// The libraries the plugin was compiled against, as its header records them: PluginAPI first.
    public let libraries: [LibraryVersion]
    /// The file names of the shared libraries the plugin links (its `DT_NEEDED` entries), but for the
    /// Swift runtime's own.
    var linkedLibraries: [String] = []
    /// The file as discovery checked it, for a probe child to open it without checking it again.
    var candidate: PluginCandidate?
    /// The plugin's metadata.
    public var metadata: PluginMetadata { descriptor.metadata }
}
