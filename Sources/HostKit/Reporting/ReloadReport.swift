/// What a ``PluginHost/reload(probe:drainTimeout:hookTimeout:)`` changed, and what it kept and why.
public struct ReloadReport: Sendable {
    /// What happened to one plugin, or to one file that is no plugin the host serves.
    public enum Action: String, Sendable {
        /// A plugin new to the host was loaded and started.
        case added
        /// A new version replaced the plugin: loaded beside the old one, started, swapped in; then
        /// the old version was stopped.
        case upgraded
        /// The plugin requires (directly or through others) a plugin that was upgraded: registered
        /// again from its file, started, swapped in with the upgrade, the old instance stopped.
        case restarted
        /// The plugin's file is unchanged, but a setting it read (``PluginHost/settings``) has another
        /// value now: registered again from its file with its settings read anew, started, swapped in
        /// with the plugins that require it (`restarted`), the old instance stopped, as for an
        /// upgrade. ``Entry/settingsChanged`` names the keys.
        case reconfigured
        /// The plugin's file is unchanged, but the operator placed it elsewhere (a settings file's
        /// `placement`): opened anew there (``Entry/movedTo``), started, swapped in with the plugins
        /// that require it (`restarted`), the old instance stopped, as for an upgrade.
        case moved
        /// The plugin's file is gone: it was stopped and its services removed. (A host also tells its
        /// `processReport` such entries, with ``Entry/error`` saying why, for a plugin whose process
        /// was withdrawn past its restarts and for the plugins that required it.)
        case withdrawn
        /// The plugin keeps serving as it was, though a file asked for a change: ``Entry/error`` says
        /// why the change was refused.
        case kept
        /// A file that is no plugin of the host was refused (``Entry/error``); nothing changed.
        case refused
    }

    /// One plugin's (or file's) outcome.
    public struct Entry: Sendable {
        /// What happened to the plugin or file.
        public let action: Action
        /// The plugin's name, or the file's path for a file refused before its metadata was read.
        public let plugin: String
        /// The file: the new one for `added`, `upgraded` and `refused`, else the one serving.
        public let path: String
        /// The version serving now (for `withdrawn`: the one withdrawn); nil if unknown.
        public let version: String?
        /// For `upgraded`: the version replaced.
        public let previousVersion: String?
        /// For `kept` and `refused`: why. For `restarted`: nil.
        public let error: PluginLoadError?
        /// For `upgraded`: the keys of other plugins (or the host) the new version may get and the old
        /// one could not: those it newly declares in `requires`, sorted.
        public internal(set) var grantsAdded: [String] = []
        /// For `upgraded`: the keys of others the old version could get and the new one may not, sorted.
        public internal(set) var grantsRemoved: [String] = []
        /// For `reconfigured`: the settings the old instance read whose values changed, sorted (the
        /// keys only: a value may be a secret).
        public internal(set) var settingsChanged: [String] = []

        /// Where the plugin runs now, if it ran in the other place before: for `moved`, and for an
        /// `upgraded`, `restarted` or `reconfigured` instance opened where the operator places it now.
        public internal(set) var movedTo: PluginPlacement?

        /// Why it was kept or refused, escaped, as ``summary`` says it: for `kept`, what failed is the
        /// new instance, the old one serving on. Nil without an ``error``.
        public var reason: String? {
            error.map { action == .kept ? $0.descriptionBesideTheKeptInstance : $0.description }
        }

        /// One line: `upgraded clock 1.0.0 -> 1.1.0 (/path)` (and, if they changed, `; grants +key -key`),
        /// `reconfigured clock 1.0.0 (/path); settings changed: zone`,
        /// `kept clock 1.0.0: ...`, `refused: ...`; names, versions, paths and reasons escaped
        /// (``TerminalText/escaped(_:)``).
        public var summary: String {
            let version = version.map { " \($0)" } ?? ""
            let grants = (grantsAdded.map { " +\($0)" } + grantsRemoved.map { " -\($0)" }).joined()
            // Said last, as it says what the move costs.
            let moved = movedTo.map { "; moved \(Self.move(to: $0))" } ?? ""
            let line = switch action {
            case .added, .withdrawn: "\(action.rawValue) \(plugin)\(version) (\(path))"
            case .restarted: "restarted \(plugin)\(version) (\(path))" + moved
            case .upgraded: "upgraded \(plugin) \(previousVersion ?? "?") -> \(self.version ?? "?") (\(path))"
                + (grants.isEmpty ? "" : "; grants\(grants)") + moved
            case .reconfigured: "reconfigured \(plugin)\(version) (\(path)); settings changed: "
                + settingsChanged.joined(separator: ", ") + moved
            case .moved: "moved \(plugin)\(version) (\(path)): " + (movedTo.map(Self.move(to:)) ?? "?")
            case .kept: "kept \(plugin)\(version) (\(path))"
            case .refused: "refused"
            }
            guard let reason else { return TerminalText.escaped(line) }
            return TerminalText.escaped(line) + ": " + reason
        }

        /// `in process -> own process`; back in, what that costs the plugin's confinement.
        private static func move(to placement: PluginPlacement) -> String {
            let from: PluginPlacement = placement == .inProcess ? .ownProcess : .inProcess
            let move = "\(from.described) -> \(placement.described)"
            return placement == .inProcess ? move + "; out of its sandbox, it runs with the host's rights" : move
        }
    }

    /// What was decided before anything changed (`kept`, `refused`), then what was done, in order:
    /// the withdrawals of plugins nothing served required, each step's upgrades, additions and
    /// restarts (providers first), the additions that needed no new version, the other withdrawals
    /// (or `kept`, if a step that would have freed them was refused).
    public internal(set) var entries: [Entry] = []
    /// The shutdown hooks of the versions replaced and of the plugins withdrawn, and the closing of
    /// their services, in the order they ran. A replaced version is named `name (old instance, replaced)`,
    /// so that its `stopped` line is not read as the plugin's.
    public internal(set) var stopped = ShutdownReport()
    /// How many plugins serve on, unchanged.
    public internal(set) var unchanged = 0
    /// How many plugin images the process has mapped, served or not: a replaced, withdrawn or refused
    /// version stays mapped until the process ends (code is never unloaded). Restart the host when
    /// they add up.
    public internal(set) var imagesMapped = 0

    /// True if nothing was done because the host was shut down (and not loaded again since).
    public internal(set) var afterShutdown = false

    /// The entries of `action`.
    public func entries(_ action: Action) -> [Entry] { entries.filter { $0.action == action } }
    /// True if a change was refused, a hook of an old version threw or hung, or the host was shut down.
    public var hasProblems: Bool { afterShutdown || entries.contains { $0.error != nil } || !stopped.problems.isEmpty }

    /// One line per entry, the stopped hooks, and a last line with what is unchanged and mapped.
    public var lines: [String] {
        if afterShutdown { return ["not reloaded: the host was shut down"] }
        return entries.map(\.summary) + stopped.lines
            + ["unchanged: \(unchanged) plugin\(unchanged == 1 ? "" : "s"); plugin images mapped: \(imagesMapped)"]
    }

    /// ``lines``, joined by newlines.
    public var text: String { lines.joined(separator: "\n") }

    /// The report as JSON: `{"changes": [{"action", "plugin", "path", "version", "previousVersion",
    /// "grantsAdded", "grantsRemoved", "settingsChanged", "movedTo", "error"}], "stopped": [lines], "unchanged", "imagesMapped",
    /// "afterShutdown"}`.
    public var json: String {
        struct Change: Encodable {
            let action: String, plugin: String, path: String
            let version: String?, previousVersion: String?
            let grantsAdded: [String]?, grantsRemoved: [String]?
            let settingsChanged: [String]?
            let movedTo: String?
            let error: String?
        }
        struct Report: Encodable {
            let changes: [Change]
            let stopped: [String]
            let unchanged: Int, imagesMapped: Int
            let afterShutdown: Bool
        }
        let changes = entries.map {
            Change(action: $0.action.rawValue, plugin: $0.plugin, path: $0.path, version: $0.version,
                   previousVersion: $0.previousVersion, grantsAdded: $0.action == .upgraded ? $0.grantsAdded : nil,
                   grantsRemoved: $0.action == .upgraded ? $0.grantsRemoved : nil,
                   settingsChanged: $0.action == .reconfigured ? $0.settingsChanged : nil, movedTo: $0.movedTo?.rawValue,
                   error: $0.error?.description)
        }
        return encodeJSON(Report(changes: changes, stopped: stopped.lines, unchanged: unchanged, imagesMapped: imagesMapped,
                                 afterShutdown: afterShutdown))
    }
}

extension ReloadReport.Entry {
    /// A file refused before a plugin of the host was found in it.
    init(refused error: PluginLoadError, path: String) {
        self.init(action: .refused, plugin: path, path: path, version: nil, previousVersion: nil, error: error)
    }
}
