import PluginAPI

/// A plugin file whose header checked out: its path, metadata and versions.
public struct LoadedPlugin: Sendable {
    /// The real path of the file.
    public internal(set) var path: String
    /// The plugin's metadata, read from its descriptor after its header and library versions checked out.
    public let metadata: PluginMetadata
    /// Makes the plugin's module (the descriptor's `makeModule`).
    let makeModule: @Sendable () -> any Module
    /// The libraries the plugin was compiled against, as its header records them: PluginAPI first.
    public let libraries: [LibraryVersion]
    /// The copies of the recorded libraries the plugin is bound to (the files the process loaded for
    /// it, and the versions they report), in the order of ``libraries``.
    public internal(set) var copies: [LibraryCopy] = []
    /// The file names of the shared libraries the plugin links (its `DT_NEEDED` entries), but for the
    /// Swift runtime's own.
    var linkedLibraries: [String] = []
    /// The file as discovery checked it, for a probe child to open it without checking it again.
    var candidate: PluginCandidate?
    /// The dynamic loader's handle of the image, as a number: one image under two paths is one plugin.
    var image: UInt?
    /// For a plugin served from a process of its own: the name the host reaches that process by;
    /// nil for a plugin in this process.
    public internal(set) var servedBy: String?
    /// For a plugin served from a process of its own: the layers of the sandbox that process entered
    /// before it loaded the plugin (``PluginSandbox``), in order; empty if it runs unconfined.
    public internal(set) var sandbox: [String] = []
    /// For a sandboxed plugin in a process of its own: what its sandbox grants beyond the layers, the
    /// needs it declared (`PluginMetadata.needs`) that the operator granted (``SandboxGrant``), as
    /// `read PATH`, `write PATH`, `run PATH`, `tcp PORT`.
    public internal(set) var sandboxGranted: [String] = []
    /// The needs it declared that the operator did not grant, in the same words: denied.
    public internal(set) var sandboxRefused: [String] = []

    init(path: String, metadata: PluginMetadata, libraries: [LibraryVersion], linkedLibraries: [String] = [],
         candidate: PluginCandidate? = nil, makeModule: @escaping @Sendable () -> any Module) {
        self.path = path
        self.metadata = metadata
        self.libraries = libraries
        self.linkedLibraries = linkedLibraries
        self.candidate = candidate
        self.makeModule = makeModule
    }
}

extension LoadedPlugin {
    /// The same image, found at `candidate`'s path (moved or linked there since it was opened).
    func moved(to candidate: PluginCandidate) -> LoadedPlugin {
        var plugin = self
        plugin.path = candidate.realPath
        plugin.candidate = candidate
        return plugin
    }
}
