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
        /// library laid beside them, say): the names of those plugins; `the host` for one no plugin
        /// links that the host's own process has mapped (`libPluginActors.so` beside `host` in a
        /// build folder). Empty for a plugin.
        public internal(set) var linkedBy: [String] = []
        /// For a file that is a loaded copy of a versioned library (a contract library): the version it reports.
        public internal(set) var library: LibraryCopy?
        /// For a file named as a library the load's plugins link that is not the copy they are bound
        /// to (not opened, so its version is not read): the copy they use instead.
        public internal(set) var usedInstead: LibraryCopy?
        /// For a versioned library (a contract library, PluginActors) that no plugin of this load links
        /// nor the host maps: a file without the entry that defines its library's version function
        /// (`swift_library_version_NAME` in `libNAME.so`): NAME. Left alone: nothing of it is opened,
        /// and it is no problem of the load (an unknown library without the entry still is).
        public internal(set) var unlinkedLibrary: String?
        /// For a plugin: the libraries it was built against, as its header records them (PluginAPI first).
        public internal(set) var builtAgainst: [LibraryVersion] = []
        /// For a plugin: the copies of those libraries the process loaded for it.
        public internal(set) var copies: [LibraryCopy] = []
        /// For a plugin served from a process of its own (``PluginProcesses``): the name the host
        /// reaches that process by (``LoadedPlugin/servedBy``); nil for a plugin in this process.
        public internal(set) var servedBy: String?
        /// For a plugin served from a process of its own: the layers of that process's sandbox
        /// (``LoadedPlugin/sandbox``); empty if it runs unconfined.
        public internal(set) var sandbox: [String] = []
        /// For a sandboxed plugin in a process of its own: what it declared and was granted
        /// (``LoadedPlugin/sandboxGranted``).
        public internal(set) var sandboxGranted: [String] = []
        /// What it declared and was not granted (``LoadedPlugin/sandboxRefused``).
        public internal(set) var sandboxRefused: [String] = []

        /// True if the plugin's services are in the locator.
        public var isLoaded: Bool { error == nil && !isLibrary }
        /// True if the file is a library the load's plugins link (or a copy of one it did not use, or a
        /// contract library none links), not a plugin.
        public var isLibrary: Bool { !linkedBy.isEmpty || usedInstead != nil || unlinkedLibrary != nil }

        /// `loaded name version (path)` with the contract libraries it was built against and the
        /// copies it uses (and the process that serves it, for one in a process of its own),
        /// `library name version (path), linked by …` (`not used` and the copy used
        /// instead, for a copy the load left), or `error: ` and the problem; names, versions and the
        /// path escaped (``TerminalText/escaped(_:)``).
        public var summary: String {
            if let error { return "error: \(error)" }
            if isLibrary {
                let library = self.library.map { "\($0.version.name) \($0.version) " } ?? ""
                let users = linkedBy.isEmpty ? "" : ", linked by \(linkedBy.joined(separator: ", "))"
                let unused = usedInstead.map { ", not used: this load uses \($0.version.name) \($0.version) (\($0.file))" } ?? ""
                if let unlinkedLibrary {
                    return TerminalText.escaped("library \(unlinkedLibrary) (\(path)), no plugin here links it")
                }
                return TerminalText.escaped("library \(library)(\(path))\(unused)\(users)")
            }
            let meta = metadata.map { "\($0.name) \($0.version)" } ?? "?"
            let contracts = builtAgainst.dropFirst().map { version in
                let copy = copies.first { $0.version.name == version.name }
                return "; built against \(version.name) \(version)" + (copy.map { ", uses \($0.version) (\($0.file))" } ?? "")
            }
            let granted = sandboxGranted.isEmpty ? "" : "; granted: " + sandboxGranted.joined(separator: ", ")
            let refused = sandboxRefused.isEmpty ? "" : "; declared and not granted: " + sandboxRefused.joined(separator: ", ")
            let confinement = sandbox.isEmpty ? ", not sandboxed" : ", sandboxed: " + sandbox.joined(separator: ", ") + granted + refused
            let process = servedBy.map { "; in a process of its own, \($0)\(confinement)" } ?? ""
            return TerminalText.escaped("loaded \(meta) (\(path))" + contracts.joined() + process)
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

    /// The report as JSON: `{"plugins": [{"path", "name", "version", "provides", "requires", "grants", "status", "error",
    /// "builtAgainst", "libraries", "usedInstead", "unlinkedLibrary", "servedBy", "sandbox", "sandboxGranted", "sandboxRefused"}]}`; `status` is `loaded`, `library` (a library the
    /// load's plugins link, a copy of one it did not use, or a versioned library none links, named by
    /// `unlinkedLibrary`) or `failed`; `libraries` are the copies
    /// (`{"name", "version", "file"}`) a plugin uses, or the copy a library file is; `servedBy` names
    /// the process of a plugin in a process of its own, `sandbox` that process's layers; `grants` are the keys what the plugin is lent
    /// reads (those it requires and its own, sorted).
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
        /// The keys what the plugin is lent may read: those it requires and its own.
        let grants: [String]?
        let status: String
        let error: String?
        /// A plugin's libraries, as `SampleContracts 1.1.0`, PluginAPI first.
        let builtAgainst: [String]?
        /// The copies a plugin uses; for a library file, itself.
        let libraries: [JSONLibrary]?
        /// For a copy of a contract library the load did not use: the copy it uses instead.
        let usedInstead: JSONLibrary?
        /// For a versioned library (a contract library) no plugin of the load links: its name.
        let unlinkedLibrary: String?
        /// For a plugin in a process of its own: that process's name.
        let servedBy: String?
        /// For a plugin in a process of its own: the layers of its sandbox (empty: none), what it
        /// declared and was granted, and what it declared and was not.
        let sandbox: [String]?
        let sandboxGranted: [String]?
        let sandboxRefused: [String]?
    }

    /// A copy of a library in ``json``: `{"name", "version", "file"}`.
    package struct JSONLibrary: Encodable {
        let name: String
        let version: String
        let file: String

        init(_ copy: LibraryCopy) {
            (name, version, file) = (copy.version.name, "\(copy.version)", copy.file)
        }
    }

    /// ``json``'s `plugins`, for a program that prints them inside JSON of its own (`host run --json`).
    package var jsonPlugins: [JSONPlugin] {
        entries.map {
            JSONPlugin(path: $0.path, name: $0.metadata?.name, version: $0.metadata?.version,
                       provides: $0.metadata?.providedStoreKeys, requires: $0.metadata?.requiredStoreKeys,
                       grants: $0.metadata?.grantedStoreKeys,
                       status: $0.isLoaded ? "loaded" : $0.isLibrary ? "library" : "failed", error: $0.error?.description,
                       builtAgainst: $0.builtAgainst.isEmpty ? nil : $0.builtAgainst.map { "\($0.name) \($0)" },
                       libraries: $0.library.map { [JSONLibrary($0)] } ?? ($0.copies.isEmpty ? nil : $0.copies.map(JSONLibrary.init)),
                       usedInstead: $0.usedInstead.map(JSONLibrary.init),
                       unlinkedLibrary: $0.unlinkedLibrary, servedBy: $0.servedBy,
                       sandbox: $0.servedBy == nil ? nil : $0.sandbox,
                       sandboxGranted: $0.servedBy == nil ? nil : $0.sandboxGranted,
                       sandboxRefused: $0.servedBy == nil ? nil : $0.sandboxRefused)
        }
    }
}
