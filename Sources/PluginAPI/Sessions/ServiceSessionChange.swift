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

/// The two steps of one session change, each run for every observer in turn: first `general` (a
/// provider deactivates its service and prepares the new session's), then `make` (an `atOne`
/// provider makes its service), so that a factory making its service in the `make` step finds the
/// other services already switched to the new session.
public enum ServiceSessionChangeStep: Sendable, Hashable {
    /// Every observer learns of the change, before any service of the new session is made.
    case general
    /// Services made at once for the new session are made.
    case make
}

/// Keeps an observer of a ``ServiceSessionMediator`` registered: releasing it (or calling
/// ``cancel()``) stops the calls.
public final class ServiceSessionObservation: Sendable {
    private let observer: Lock<(any AnyObject & Sendable)?>

    init(_ observer: any AnyObject & Sendable) {
        self.observer = Lock(observer)
    }

    /// Stops the calls now.
    public func cancel() {
        observer.withLock { $0 = nil }
    }
}
