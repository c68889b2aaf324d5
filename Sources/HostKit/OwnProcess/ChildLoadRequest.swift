internal import DynamicLoading

/// The file the host asks its child to load: the one its discovery checked.
struct ChildLoadRequest: Codable, Sendable {
    /// The file as the host's discovery checked it: the child checks the file again, and refuses it
    /// if it is not the same file with the same contents (``PluginCandidate/identity``).
    let candidate: PluginCandidate
    /// How long the plugin's start hook may take.
    let startTimeout: Duration
}
