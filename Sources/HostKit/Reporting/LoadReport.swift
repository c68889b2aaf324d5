import Foundation
import PluginAPI

/// What happened to every plugin file of one load: loaded, or refused and why.
public struct LoadReport: Sendable {
    /// One plugin file's outcome.
    public struct Entry: Sendable {
        /// The file (its real path when it was found).
        public let path: String
        /// The plugin's metadata, when its header could be read.
        public let metadata: PluginMetadata?
        /// `nil` if the plugin was registered, or the file is a library of the load's plugins;
        /// otherwise why not.
        public let error: PluginLoadError?
        /// For a file that is no plugin but a shared library plugins of this load link (a contract
        /// library laid beside them, say): the names of those plugins. Empty for a plugin.
        public internal(set) var linkedBy: [String] = []

        /// True if the plugin's services are in the locator.
        public var isLoaded: Bool { error == nil && linkedBy.isEmpty }
        /// True if the file is a library the load's plugins link, not a plugin.
        public var isLibrary: Bool { !linkedBy.isEmpty }

        /// `loaded name version (path)`, `library (path), linked by …`, or `error: ` and the problem;
        /// names, versions and the path escaped (``TerminalText/escaped(_:)``).
        public var summary: String {
            if let error { return "error: \(error)" }
            if isLibrary { return TerminalText.escaped("library (\(path)), linked by \(linkedBy.joined(separator: ", "))") }
            let meta = metadata.map { "\($0.name) \($0.version)" } ?? "?"
            return TerminalText.escaped("loaded \(meta) (\(path))")
        }
    }

    /// Every file, in discovery order, then files that could not even be read as candidates.
    public internal(set) var entries: [Entry] = []

    /// The plugins that were registered.
    public var loaded: [Entry] { entries.filter(\.isLoaded) }
    /// Every problem, one per refused file.
    public var problems: [PluginLoadError] { entries.compactMap(\.error) }
    /// The files that are libraries the load's plugins link, not plugins.
    public var libraries: [Entry] { entries.filter(\.isLibrary) }
    /// True if any file was refused.
    public var hasProblems: Bool { entries.contains { $0.error != nil } }

    /// One line per plugin: `loaded name version (path)` or the problem.
    public var text: String {
        entries.map(\.summary).joined(separator: "\n")
    }

    /// The report as JSON: `{"plugins": [{"path", "name", "version", "provides", "requires", "status", "error"}]}`;
    /// `status` is `loaded`, `library` (a library the load's plugins link) or `failed`.
    public var json: String {
        encodeJSON(["plugins": jsonPlugins])
    }

    /// One file of ``json``'s `plugins`.
    package struct JSONPlugin: Encodable {
        let path: String
        let name: String?
        let version: String?
        let provides: [String]?
        let requires: [String]?
        let status: String
        let error: String?
    }

    /// ``json``'s `plugins`, for a program that prints them inside JSON of its own (`host run --json`).
    package var jsonPlugins: [JSONPlugin] {
        entries.map {
            JSONPlugin(path: $0.path, name: $0.metadata?.name, version: $0.metadata?.version,
                       provides: $0.metadata?.providedStoreKeys, requires: $0.metadata?.requiredStoreKeys,
                       status: $0.isLoaded ? "loaded" : $0.isLibrary ? "library" : "failed", error: $0.error?.description)
        }
    }
}

extension LoadReport.Entry {
    /// The outcome for a plugin whose header and metadata were read.
    init(_ plugin: LoadedPlugin, error: PluginLoadError?) {
        self.init(path: plugin.path, metadata: plugin.metadata, error: error)
    }
}
