/// What happened when a host shut its plugins down.
public struct ShutdownReport: Sendable {
    /// One plugin's shutdown hook.
    public struct Entry: Sendable {
        /// The plugin's name.
        public let plugin: String
        /// How its hook ended.
        public let outcome: HookOutcome
        /// How long the host waited for it.
        public let duration: Duration
    }

    /// In the order the hooks ran: reverse start order.
    public internal(set) var entries: [Entry] = []

    /// The hooks that threw or timed out.
    public var problems: [Entry] { entries.filter { !$0.outcome.isFinished } }

    /// One line per plugin: `stopped name` or what went wrong.
    public var text: String {
        entries.map { entry in
            entry.outcome.isFinished
                ? "stopped \(entry.plugin)"
                : "error: plugin '\(entry.plugin)': shutdown \(entry.outcome)"
        }.joined(separator: "\n")
    }
}
