/// A session-bound service: for each session, an ordinary core of the factory's mode, replaced
/// (and the old service deactivated or dropped) when the mediator's session changes.
final class SessionCore<Factory: ServiceSessionFactory>: ProviderCore, SessionObserver, @unchecked Sendable {
    // @unchecked: the mutable state sits behind `state`.
    typealias Service = Factory.Service
    typealias Session = Factory.Session

    private struct State {
        /// Hands out the current session's service.
        var current: any ProviderCore<Service>
        /// Services deactivated with a request to keep them, by session key.
        var kept: [AnyHashable: Service] = [:]
        /// True once `current` serves a real session (set by `init` or by a change during `init`).
        var started = false
    }

    let identity: ServiceIdentity
    let logger: (any ServiceLogger)?
    private let factory: Factory
    private let state: Lock<State>

    var mode: ServiceFactoryMode { factory.mode }

    init(factory: Factory, mediator: ServiceSessionMediator<Session>, identity: ServiceIdentity,
         logger: (any ServiceLogger)?) {
        self.factory = factory
        self.identity = identity
        self.logger = logger
        state = Lock(State(current: FailedCore(ServiceObtainError(service: identity, error: SessionNotStarted()),
                                               identity: identity)))
        let session = mediator.register(self)
        let first = makeCore(for: session, seed: nil)
        // A change that ran meanwhile already installed the newer session's core: keep that one.
        state.withLock { state in
            guard !state.started else { return }
            state.current = first
            state.started = true
        }
    }

    func get() throws -> Service {
        try state.withLock { $0.current }.get()
    }

    var existing: Service? { state.withLock { $0.current }.existing }

    func sessionChanged(from old: Session, to new: Session) {
        let previous = state.withLock { $0.current }
        // The factory's hooks run outside the lock: they may get other services.
        if let service = previous.existing, factory.deactivateService(service, session: old) {
            state.withLock { $0.kept[old.key] = service }
        }
        let kept = state.withLock { $0.kept.removeValue(forKey: new.key) }
        let seed = kept.flatMap { factory.activateService($0, session: new) ? $0 : nil }
        let next = makeCore(for: new, seed: seed)
        state.withLock { state in
            state.current = next
            state.started = true
        }
    }

    /// A core serving `session`; `seed` is a kept service to hand out instead of making one.
    private func makeCore(for session: Session, seed: Service?) -> any ProviderCore<Service> {
        let factory = factory
        let make: @Sendable () throws -> Service = { try factory.makeService(session: session) }
        switch factory.mode {
        case .atOne:
            if let seed { return ReadyCore(seed, identity: identity) }
            return ServiceProvider(mode: .atOne, identity: identity, logger: logger, make).core
        case .lazy, .weak:
            return SingletonCore(mode: factory.mode, identity: identity, logger: logger, seed: seed, factory: make)
        case .many:
            return ManyCore(identity: identity, logger: logger, make: make)
        }
    }
}

/// Never seen by a caller: the core is replaced before `init` returns.
private struct SessionNotStarted: Error {}
