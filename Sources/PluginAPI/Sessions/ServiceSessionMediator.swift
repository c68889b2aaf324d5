/// Holds the current session and tells every provider bound to it when it changes.
///
/// ```swift
/// let sessions = ServiceSessionMediator(session: UserSession(user: "guest"))
/// try locator.addService(key: Keys.profile, factory: ProfileFactory(), mediator: sessions)
/// sessions.updateSession(UserSession(user: "ada"))   // the profile is made anew for ada
/// ```
///
/// Changes are serialized: one ``updateSession(_:remakePolicy:)`` finishes with every provider before the next
/// starts. A get that races a change may still return the previous session's service. Observers
/// (``addObserver(_:)``) hear each change after its providers, outside every lock of the mediator, so
/// an observer may change the session from its callback.
public final class ServiceSessionMediator<Session: ServiceSession>: Sendable {
    private struct State {
        var session: Session
        /// The bound services, told of a change while it is made.
        var providers: [WeakObserver<Session>] = []
        /// `addObserver`'s, told of each change once it is made.
        var observers: [WeakObserver<Session>] = []
        /// Changes made that observers have not heard of yet, oldest first.
        var unheard: [Change] = []
        /// Whether a thread is telling observers of `unheard`: it goes on until none is left.
        var telling = false
    }

    /// A change made, for observers to hear of.
    private struct Change {
        let old: Session
        let new: Session
        let policy: ServiceSessionRemakePolicy
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
    /// with the `general` step, then each with the `make` step; the providers while the change is
    /// made, the observers after it, changes in the order they were made. An observer may call this
    /// from its callback: its change is made at once, and observers hear of it once they have heard of
    /// the change in progress, before the outer call returns. (A call that races another thread's
    /// may return before its observers heard of it: that thread tells them next.) Do not call it from
    /// inside a session factory: the change in progress holds it.
    public func updateSession(_ session: Session, remakePolicy: ServiceSessionRemakePolicy = .none) {
        changing.withLock { _ in
            let (old, providers) = state.withLock { state in
                let old = state.session
                state.session = session
                state.providers.removeAll { $0.observer == nil }
                return (old, state.providers.compactMap(\.observer))
            }
            for step in [ServiceSessionChangeStep.general, .make] {
                for provider in providers {
                    provider.sessionChanged(from: old, to: session, policy: remakePolicy, step: step)
                }
            }
            // Still under `changing`: the queue holds changes in the order they were made.
            state.withLock { $0.unheard.append(Change(old: old, new: session, policy: remakePolicy)) }
        }
        tellObservers()
    }

    /// Tells the observers of every change they have not heard of, unless a thread (maybe this one,
    /// further up: an observer changing the session) is at it already and will tell them of it too.
    private func tellObservers() {
        let teller = state.withLock { state in
            guard !state.telling else { return false }
            state.telling = true
            return true
        }
        guard teller else { return }
        while let (change, observers) = state.withLock({ state -> (Change, [any SessionObserver<Session>])? in
            guard !state.unheard.isEmpty else {
                state.telling = false
                return nil
            }
            state.observers.removeAll { $0.observer == nil }
            return (state.unheard.removeFirst(), state.observers.compactMap(\.observer))
        }) {
            for step in [ServiceSessionChangeStep.general, .make] {
                for observer in observers {
                    observer.sessionChanged(from: change.old, to: change.new, policy: change.policy, step: step)
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
    /// observers. The calls go on while the returned observation lives and is not cancelled. They come
    /// after the change is made, outside every lock of the mediator: the callback may read or change
    /// the session (``updateSession(_:remakePolicy:)``).
    public func addObserver(
        _ observer: @escaping @Sendable (_ session: Session, _ policy: ServiceSessionRemakePolicy,
                                         _ step: ServiceSessionChangeStep) -> Void
    ) -> ServiceSessionObservation {
        let relay = ClosureObserver(observer)
        state.withLock { $0.observers.append(WeakObserver(observer: relay)) }
        return ServiceSessionObservation(relay)
    }

    /// Binds `provider` and returns the session it starts with: it hears each change while it is made.
    func register(_ provider: any SessionObserver<Session>) -> Session {
        state.withLock { state in
            state.providers.append(WeakObserver(observer: provider))
            return state.session
        }
    }
}
