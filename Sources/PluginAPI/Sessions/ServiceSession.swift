/// Something services can be bound to, such as the signed-in user. Two sessions with the same
/// ``key`` are the same session.
public protocol ServiceSession: Sendable {
    /// Identifies the session: services kept for a session come back when a session with this key does.
    var key: AnyHashable { get }
}
