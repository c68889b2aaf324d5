/// The state behind a ``ServiceAsyncProvider``.
///
/// Exactly once without blocking: the first get of a singleton starts one task that runs the factory
/// and records the outcome; every get meanwhile awaits that task. A get whose own path is making
/// this service, or whose wait would close a chain of waits between tasks, fails with a cycle error
/// instead of waiting forever.
final class AsyncCore<Service: Sendable>: Sendable {
    typealias Factory = @Sendable () async throws -> Service

    private struct State {
        /// A lazy service, once made; an atOne service's outcome, once known.
        var made: Result<Service, ServiceObtainError>?
        /// A weak service while someone holds it; only a weak core has one (as in `SingletonCore`).
        let weakInstance: WeakReference<Service>?
        /// The task making the service now, if any.
        var making: Task<Service, any Error>?
    }

    /// What a get does after looking at the state.
    private enum Step {
        case ready(Result<Service, ServiceObtainError>)
        case started(Task<Service, any Error>)
        case wait(Task<Service, any Error>)
    }

    let mode: ServiceFactoryMode
    let identity: ServiceIdentity
    let logger: (any ServiceLogger)?
    private let make: Factory
    private let state: Lock<State>

    init(mode: ServiceFactoryMode, identity: ServiceIdentity, logger: (any ServiceLogger)?, make: @escaping Factory) {
        self.mode = mode
        self.identity = identity
        self.logger = logger
        self.make = make
        state = Lock(State(weakInstance: mode == .weak ? WeakReference() : nil))
        if mode == .atOne {
            // Started now, awaited by the first get; a failure stays (atOne keeps its outcome).
            let parent = ResolutionTracker.current
            state.withLock { $0.making = start(parent: parent) }
        }
    }

    func get() async throws -> Service {
        let parent = ResolutionTracker.current
        let cell = ObjectIdentifier(self)
        try ResolutionTracker.checkPath(parent, cell: cell, service: identity)
        if mode == .many { return try await run(parent: parent) }
        let step: Step = state.withLock { state in
            if let made = state.made { return .ready(made) }
            if let alive = state.weakInstance?.service() { return .ready(.success(alive)) }
            if let making = state.making { return .wait(making) }
            let task = start(parent: parent)
            state.making = task
            return .started(task)
        }
        switch step {
        case let .ready(result):
            return try result.get()
        case let .started(task):
            return try await task.value  // a ServiceObtainError already, if it failed
        case let .wait(task):
            // Another task is making it: wait for that, unless the wait would close a cycle.
            let wait = try ResolutionTracker.beginWait(parent, cell: cell, service: identity)
            defer { ResolutionTracker.endWait(wait) }
            return try await task.value  // a ServiceObtainError already, if it failed
        }
    }

    /// The service currently held, without making one.
    var existing: Service? {
        state.withLock { state in
            if case let .success(service)? = state.made { return service }
            return state.weakInstance?.service()
        }
    }

    /// Starts the task that makes the singleton and records what it made. Called with `state` held.
    private func start(parent: ResolutionFrame?) -> Task<Service, any Error> {
        Task {
            let result: Result<Service, ServiceObtainError>
            do {
                result = .success(try await run(parent: parent, owned: true))
            } catch {
                // `run` wrapped it already.
                result = .failure(error as? ServiceObtainError ?? ServiceObtainError(service: identity, error: error))
            }
            state.withLock { state in
                state.making = nil
                switch (mode, result) {
                case (.atOne, _), (.lazy, .success): state.made = result
                case let (.weak, .success(service)): state.weakInstance?.hold(service)
                default: break // a lazy or weak failure: the next get tries again
                }
            }
            return try result.get()
        }
    }

    /// Runs the factory on the current path (plus this service), wrapping and logging its errors.
    private func run(parent: ResolutionFrame?, owned: Bool = false) async throws -> Service {
        let cell = ObjectIdentifier(self)
        do {
            let counting = logger as? CountingLogger
            let start = counting.map { _ in ContinuousClock.now }
            let made = try await ResolutionTracker.makeAsync(cell: cell, service: identity, parent: parent,
                                                             owned: owned, make)
            if let counting, let start {
                counting.made(identity, mode: mode, in: start.duration(to: .now))
            } else {
                logger?.log(.made(identity, mode: mode))
            }
            return made
        } catch {
            throw factoryFailed(error, making: identity, logger: logger)
        }
    }
}
