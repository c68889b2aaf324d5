/// A session-bound service: for each session, an ordinary core of the factory's mode, replaced
/// (and the old service deactivated or dropped) when the mediator's session changes.
final class SessionCore<Factory: ServiceSessionFactory>: ServiceCore<Factory.Service>, SessionObserver,
    @unchecked Sendable {
    // @unchecked: the mutable state sits behind `state`.
    typealias Service = Factory.Service
    typealias Session = Factory.Session

    private struct State {
        /// Hands out the current session's service.
        var current: ServiceCore<Service>
        /// Services deactivated with a request to keep them, by session key.
        var kept: [AnyHashable: Service] = [:]
        /// True once `current` serves a real session (set by `init` or by a change during `init`).
        var started = false
        /// The session whose `atOne` service the `make` step of the change in progress makes.
        var pending: Session?
    }

    private let logger: (any ServiceLogger)?
    private let factory: Factory
    private let state: Lock<State>

    init(factory: Factory, mediator: ServiceSessionMediator<Session>, identity: ServiceIdentity,
         logger: (any ServiceLogger)?) {
        self.factory = factory
        self.logger = logger
        state = Lock(State(current: FailedCore(ServiceObtainError(service: identity, error: SessionNotStarted()),
                                               identity: identity)))
        super.init(identity: identity, mode: factory.mode)
        let session = mediator.register(self)
        let first = makeCore(for: session, seed: nil)
        // A change that ran meanwhile already installed the newer session's core: keep that one.
        state.withLock { state in
            guard !state.started else { return }
            state.current = first
            state.started = true
        }
    }

    /// Never published: the service changes with the session.
    override func obtain() throws -> Service {
        try state.withLock { $0.current }.get()
    }

    override var existing: Service? { state.withLock { $0.current }.existing }

    /// `general`: deactivate the old session's service and put a core for the new session in place
    /// (an `atOne` one without a kept service to reuse waits for `make`); `make`: make that one.
    func sessionChanged(from old: Session, to new: Session, policy: ServiceSessionRemakePolicy,
                        step: ServiceSessionChangeStep) {
        switch step {
        case .general: prepare(from: old, to: new, policy: policy)
        case .make:
            guard let session = state.withLock({ state in defer { state.pending = nil }; return state.pending }) else { return }
            let next = makeCore(for: session, seed: nil)
            state.withLock { state in
                state.current = next
                state.started = true
            }
        }
    }

    private func prepare(from old: Session, to new: Session, policy: ServiceSessionRemakePolicy) {
        let previous = state.withLock { $0.current }
        if old.key == new.key && policy == .none {
            // The same session: the services stay, but a failed atOne service gets another try.
            guard factory.mode == .atOne, previous.existing == nil else { return }
            state.withLock { $0.pending = new }
            return
        }
        // The factory's hooks run outside the lock: they may get other services. The old service
        // may be kept for its session's return, unless everything is cleared or it is the very
        // session whose service is being made anew.
        let keepable = policy == .none || (policy == .force && old.key != new.key)
        if let service = previous.existing, factory.deactivateService(service, session: old), keepable {
            state.withLock { $0.kept[old.key] = service }
        }
        let kept = state.withLock { state in
            if policy == .clearAll { state.kept.removeAll() }
            return state.kept.removeValue(forKey: new.key)
        }
        let seed = policy == .none ? kept.flatMap { factory.activateService($0, session: new) ? $0 : nil } : nil
        if factory.mode == .atOne && seed == nil {
            state.withLock { $0.pending = new }
            return
        }
        let next = makeCore(for: new, seed: seed)
        state.withLock { state in
            state.current = next
            state.started = true
        }
    }

    /// A core serving `session`; `seed` is a kept service to hand out instead of making one.
    private func makeCore(for session: Session, seed: Service?) -> ServiceCore<Service> {
        let factory = factory
        return ServiceCore.make(mode: factory.mode, identity: identity, logger: logger, seed: seed) {
            try factory.makeService(session: session)
        }
    }
}

/// Never seen by a caller: the core is replaced before `init` returns.
private struct SessionNotStarted: Error {}
