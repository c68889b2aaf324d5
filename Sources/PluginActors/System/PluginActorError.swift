/// Why a call to a service of another process failed. The call never traps: every failure of the
/// other process, the connection or the message is one of these, named by the process (`peer`).
///
/// Texts that came from the other process (`reason` of ``remoteFailure(peer:type:message:)``, say)
/// are the plugin's: escape them before printing them to a terminal.
public enum PluginActorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The process ended while the call was pending or before it was made: every call pending at its
    /// end and every later one fails so, until it is restarted. `reason` says how it ended.
    case processEnded(peer: String, reason: String)
    /// No process serves `peer` now: not started, withdrawn, or refused.
    case unavailable(peer: String, reason: String)
    /// No answer within the call's timeout; the call was given up (the other process is told).
    case timedOut(peer: String, target: String, after: Duration)
    /// The service threw: the error's type name and description, as the other process gave them.
    case remoteFailure(peer: String, type: String, message: String)
    /// The other process has no such service, or no such method on it: its release of the contract
    /// lacks the method (one the caller's newer release added), or the two releases differ by more
    /// than additions (a method renamed, a signature changed).
    case notServed(peer: String, target: String, reason: String)
    /// A message could not be encoded or decoded: an argument or result the other side's contract
    /// version cannot read, or a peer that broke the protocol (the connection is then closed).
    case invalidMessage(peer: String, reason: String)
    /// What the actor system does not carry across processes (a generic distributed method, say).
    case unsupported(String)

    public var description: String {
        switch self {
        case let .processEnded(peer, reason): "the process of '\(peer)' ended: \(reason)"
        case let .unavailable(peer, reason): "'\(peer)' is not served: \(reason)"
        case let .timedOut(peer, target, after): "'\(peer)' did not answer \(target) within \(after)"
        case let .remoteFailure(peer, type, message): "'\(peer)' threw \(type): \(message)"
        case let .notServed(peer, target, reason): "'\(peer)' does not serve \(target): \(reason)"
        case let .invalidMessage(peer, reason): "a message to or from '\(peer)' is invalid: \(reason)"
        case let .unsupported(what): "not supported across processes: \(what)"
        }
    }
}
