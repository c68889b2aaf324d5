/// How ``ServiceSessionMediator/updateSession(_:remakePolicy:)`` treats the services bound to the
/// mediator.
public enum ServiceSessionRemakePolicy: Sendable, Hashable {
    /// A new session key: deactivate the old session's service (kept if its factory says so) and
    /// reactivate a kept service of the new session or make one. The same key: the services stay, but
    /// an `atOne` service whose factory failed is made again.
    case none
    /// As `none`, but the new session's service is always made anew, never reactivated from the cache;
    /// for the same key, the service is deactivated and made anew.
    case force
    /// Deactivate the current service, drop every cached service of every session, and make the
    /// new session's service anew.
    case clearAll
}
