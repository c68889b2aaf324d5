/// Holds the current session and tells every provider bound to it when it changes.
///
/// ```swift
/// let sessions = ServiceSessionMediator(session: UserSession(user: "guest"))
/// try locator.addService(key: Keys.profile, factory: ProfileFactory(), mediator: sessions)
/// sessions.updateSession(UserSession(user: "ada"))   // the profile is made anew for ada
/// ```
///
/// Changes are serialized: one ``updateSession(_:remakePolicy:)`` finishes with every provider before the next
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

    /// Makes `session` the current one, treating the bound services as `remakePolicy` says (see
    /// ``ServiceSessionRemakePolicy``). With the default, `.none`: if its key differs from the current
    /// session's, every bound provider deactivates (or drops) its service for the old session and
    /// activates (or makes anew) one for the new; `atOne` services are made now, before this returns.
    /// The same key replaces the session value and remakes only failed `atOne` services.
    ///
    /// Every bound provider and every observer hears of every call, also for the same key: first each
    /// with the `general` step, then each with the `make` step. Do not call it from inside a session
    /// factory: the change in progress holds it.
    public func updateSession(_ session: Session, remakePolicy: ServiceSessionRemakePolicy = .none) {
        changing.withLock { _ in
            let (old, observers) = state.withLock { state in
                let old = state.session
                state.session = session
                state.observers.removeAll { $0.observer == nil }
                return (old, state.observers.compactMap(\.observer))
            }
            for step in [ServiceSessionChangeStep.general, .make] {
                for observer in observers {
                    observer.sessionChanged(from: old, to: session, policy: remakePolicy, step: step)
                }
            }
        }
    }

    /// Drops every service bound to this mediator, of every session, and makes the current session's
    /// anew: a same-session update with `.clearAll`. Also for a session type with one key only.
    public func clearServices() {
        updateSession(session, remakePolicy: .clearAll)
    }

    /// Calls `observer` on every later change (not now: nothing is replayed), with the new session,
    /// the policy and the step: for each change, `general` then `make`, in registration order among
    /// observers. The calls go on while the returned observation lives and is not cancelled.
    public func addObserver(
        _ observer: @escaping @Sendable (_ session: Session, _ policy: ServiceSessionRemakePolicy,
                                         _ step: ServiceSessionChangeStep) -> Void
    ) -> ServiceSessionObservation {
        let relay = ClosureObserver(observer)
        _ = register(relay)
        return ServiceSessionObservation(relay)
    }

    /// Adds `observer` and returns the session it starts with.
    func register(_ observer: any SessionObserver<Session>) -> Session {
        state.withLock { state in
            state.observers.append(WeakObserver(observer: observer))
            return state.session
        }
    }
}
