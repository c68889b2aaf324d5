internal import DynamicLoading

/// The file the host asks its child to load: the one its discovery checked.
struct ChildLoadRequest: Codable, Sendable {
    /// The file as the host's discovery checked it: the child checks the file again, and refuses it
    /// if it is not the same file with the same contents (``PluginCandidate/identity``).
    let candidate: PluginCandidate
    /// How long the plugin's start hook may take.
    let startTimeout: Duration
}

/// What the child's plugin declares, as types that cross a process: names, mangled type names.
struct ChildPluginDescription: Codable, Sendable {
    struct Key: Codable, Sendable {
        let storeKey: String
        /// The mangled name of the key's type, for a distributed key; nil for a plain key.
        let keyType: String?
        /// How the key reads in errors (`'greeter' (any Greeter)`).
        let text: String
    }

    /// A library the plugin was built against, as its header records it.
    struct Library: Codable, Sendable {
        let name: String
        /// ``LibraryVersion/encoded``.
        let version: UInt64
    }

    let name: String
    let version: String
    let provides: [Key]
    let requires: [Key]
    /// The libraries the plugin was built against, PluginAPI first.
    let libraries: [Library]
}

/// One line of a plugin's own log, as its process sends it to the host (``HostLogService``): the host
/// adds the plugin's name and version, which the child does not choose.
struct ChildLogLine: Codable, Sendable {
    /// ``PluginAPI/PluginLog/Level``'s raw value.
    let level: String
    let message: String
    let metadata: [String: String]
    let file: String
    let line: UInt
}
