/// What happened when a host shut its plugins down.
public struct ShutdownReport: Sendable {
    /// One plugin's shutdown hook, or the closing of one of its services.
    public struct Entry: Sendable {
        /// The plugin's name.
        public let plugin: String
        /// The key of the `ClosableService` closed, or `nil` for the plugin's shutdown hook.
        public let service: String?
        /// How its hook ended.
        public let outcome: HookOutcome
        /// How long the host waited for it.
        public let duration: Duration
        /// Which instance of the plugin, when a reload stopped one beside another that serves (`old
        /// instance, replaced`, or `new instance, not swapped in`); nil otherwise. Apart from
        /// ``plugin``, which stays the name metrics and logs group by; ``summary`` says both.
        public internal(set) var instance: String?
    }

    /// In the order they ran: reverse start order, each plugin's hook before its services' closes.
    public internal(set) var entries: [Entry] = []

    /// The hooks that threw or timed out.
    public var problems: [Entry] { entries.filter { !$0.outcome.isFinished } }

    /// One line per entry: `stopped name`, `closed name: key`, or `error: ` and what went wrong,
    /// each escaped (``ShutdownReport/Entry/summary``).
    public var lines: [String] {
        entries.map { $0.outcome.isFinished ? $0.summary : "error: \($0.summary)" }
    }

    /// ``lines``, joined by newlines.
    public var text: String {
        lines.joined(separator: "\n")
    }
}

extension ShutdownReport.Entry {
    /// The same entry, said of `instance` of its plugin (a reload's old one, or its new one not swapped in).
    func of(instance: String) -> Self {
        var entry = self
        entry.instance = instance
        return entry
    }

    /// `stopped name`, `closed name: key`, or what went wrong (`plugin 'name': shutdown failed: ...`),
    /// the plugin's name, the key and the reason escaped (``TerminalText/escaped(_:)``).
    public var summary: String {
        let plugin = instance.map { "\(self.plugin) (\($0))" } ?? self.plugin
        let line = switch (service, outcome.isFinished) {
        case (nil, true): "stopped \(plugin)"
        case let (key?, true): "closed \(plugin): \(key)"
        case (nil, false): "plugin '\(plugin)': shutdown \(outcome)"
        case let (key?, false): "plugin '\(plugin)': closing '\(key)' \(outcome)"
        }
        return TerminalText.escaped(line)
    }
}
