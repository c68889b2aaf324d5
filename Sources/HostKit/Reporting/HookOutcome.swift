/// How one lifecycle hook ended.
public enum HookOutcome: Sendable, CustomStringConvertible {
    /// It returned.
    case finished
    /// It threw; the description of what it threw.
    case failed(String)
    /// It had not returned when its time ran out; it was cancelled and left behind.
    case timedOut(Duration)
    /// It had not returned when the host began to shut down; it was cancelled and left behind.
    case stopped

    /// How it ended; what the hook threw is escaped (``TerminalText/escaped(_:)``).
    public var description: String {
        switch self {
        case .finished: "finished"
        case let .failed(reason): "failed: \(TerminalText.escaped(reason))"
        case let .timedOut(limit): "did not finish within \(limit)"
        case .stopped: "was cancelled: the host is shutting down"
        }
    }

    /// True if the hook returned.
    public var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }
}
