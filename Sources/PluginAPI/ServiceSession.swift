/// Something services can be bound to, such as the signed-in user. Two sessions with the same
/// ``key`` are the same session.
public protocol ServiceSession: Sendable {
    /// Identifies the session: services kept for a session come back when a session with this key does.
    var key: AnyHashable { get }
}

/// Holds the current session and tells every provider bound to it when it changes.
///
/// ```swift
/// let sessions = ServiceSessionMediator(session: UserSession(user: "guest"))
/// try locator.addService(key: Keys.profile, factory: ProfileFactory(), mediator: sessions)
/// sessions.updateSession(UserSession(user: "ada"))   // the profile is made anew for ada
/// ```
///
/// Changes are serialized: one ``updateSession(_:)`` finishes with every provider before the next
/// starts. A get that races a change may still return the previous session's service.
public final class ServiceSessionMediator<Session: ServiceSession>: Sendable {
    private struct State {
        var session: Session
        var observers: [WeakObserver<Session>] = []
    }

    private let state: Lock<State>
    /// Held for a whole change, so providers see changes one at a time and in order.
    private let changing = Lock(())

    /// A mediator whose current session is `session`.
    public init(session: Session) {
        state = Lock(State(session: session))
    }

    /// The current session.
    public var session: Session { state.withLock { $0.session } }

    /// Makes `session` the current one. If its key differs from the current session's, every bound
    /// provider deactivates (or drops) its service for the old session and activates (or makes anew)
    /// one for the new; `atOne` services are made now, before this returns. The same key only
    /// replaces the session value: services stay.
    ///
    /// Do not call it from inside a session factory: the change in progress holds it.
    public func updateSession(_ session: Session) {
        changing.withLock { _ in
            let change: (old: Session, observers: [any SessionObserver<Session>])? = state.withLock { state in
                let old = state.session
                state.session = session
                guard old.key != session.key else { return nil }
                state.observers.removeAll { $0.observer == nil }
                return (old, state.observers.compactMap(\.observer))
            }
            guard let change else { return }
            for observer in change.observers {
                observer.sessionChanged(from: change.old, to: session)
            }
        }
    }

    /// Adds `observer` and returns the session it starts with.
    func register(_ observer: any SessionObserver<Session>) -> Session {
        state.withLock { state in
            state.observers.append(WeakObserver(observer: observer))
            return state.session
        }
    }
}

/// A provider bound to a session.
protocol SessionObserver<Session>: AnyObject, Sendable {
    associatedtype Session: ServiceSession
    /// Called, one change at a time, when the current session's key changes.
    func sessionChanged(from old: Session, to new: Session)
}

/// The mediator does not keep providers alive: a provider goes away with the slots that hold it.
private struct WeakObserver<Session: ServiceSession> {
    weak var observer: (any SessionObserver<Session>)?
}
