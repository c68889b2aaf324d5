import Synchronization

/// A singleton made on first use (`lazy`), or made again whenever no one holds it (`weak`).
///
/// Exactly once: a caller that moves `phase` from idle to making is the one maker; others sleep in
/// ``WaitStripes`` until the phase changes, so only callers of this one service ever wait for it,
/// and a slow factory blocks nobody else. Before waiting, a caller asks the tracker whether the maker
/// (through any chain of waits) is waiting for it: then it is a cycle, reported as an error instead of
/// a deadlock. A lazy core holds no lock of its own: an atomic phase and the factory, about 100 bytes
/// less per slot than a mutex (a weak core keeps its weak reference behind a `Lock`). A lazy service, once made, is published: later gets read it without
/// coming here.
final class SingletonCore<Service: Sendable>: ServiceCore<Service>, @unchecked Sendable {
    // @unchecked: `factory` is touched only by the one maker (the phase's compare-exchange hands it
    // over); the rest is atomic, published once, or behind a lock.
    typealias Factory = @Sendable () throws -> Service
    private let phase = Atomic<UInt8>(Phase.idle)
    /// Boxed: most locators have no logger, and a bare optional existential costs 41 bytes per core.
    private let loggerBox: LoggerBox?
    /// The factory; a lazy service lets go of it (and what it captured) once made.
    private var factory: Factory?
    /// The weak mode's instance; only a weak service has one.
    private let weakInstance: Lock<WeakReference<Service>>?

    /// `mode` is `.lazy` or `.weak`. A `seed` is taken as made already (a session's service coming back).
    init(mode: ServiceFactoryMode, identity: ServiceIdentity, logger: (any ServiceLogger)?, seed: Service? = nil,
         factory: @escaping Factory) {
        loggerBox = logger.map(LoggerBox.init)
        weakInstance = mode == .weak ? Lock(WeakReference<Service>()) : nil
        self.factory = factory
        super.init(identity: identity, mode: mode)
        if let seed {
            store(seed)
            if mode == .lazy { phase.store(Phase.made, ordering: .releasing) }
        }
    }

    override func obtain() throws -> Service {
        if let existing { return existing }
        return try makeOrWait()
    }

    override var existing: Service? {
        if mode == .lazy { return super.existing }
        return weakInstance?.withLock { $0.service() }
    }

    private func makeOrWait() throws -> Service {
        let parent = ResolutionTracker.current
        let cell = ObjectIdentifier(self)
        try ResolutionTracker.checkPath(parent, cell: cell, service: identity)
        while true {
            if phase.compareExchange(expected: Phase.idle, desired: Phase.making, ordering: .acquiringAndReleasing).exchanged {
                return try make()
            }
            if let existing { return existing }
            // Another thread is making it: wait for that, unless the wait would close a cycle.
            let wait = try ResolutionTracker.beginWait(parent, cell: cell, service: identity)
            WaitStripes.wait(for: self) { phase.load(ordering: .acquiring) != Phase.making }
            ResolutionTracker.endWait(wait)
            if let existing { return existing }
        }
    }

    /// Runs the factory as the one maker, then hands the phase back (or marks a lazy service made).
    private func make() throws -> Service {
        defer { WaitStripes.wake(self) }
        // A maker that finished between this caller's look and its compare-exchange left an instance.
        if mode == .weak, let existing {
            phase.store(Phase.idle, ordering: .releasing)
            return existing
        }
        guard let make = factory else {
            // Unreachable: only a made lazy service drops its factory, and it never goes back to idle.
            phase.store(Phase.idle, ordering: .releasing)
            throw ServiceObtainError(service: identity, error: MissingFactory())
        }
        do {
            let service = try runFactory(self, identity, mode: mode, owned: true, logger: loggerBox?.logger, make)
            store(service)
            if mode == .lazy {
                factory = nil
                phase.store(Phase.made, ordering: .releasing)
            } else {
                phase.store(Phase.idle, ordering: .releasing)
            }
            return service
        } catch {
            phase.store(Phase.idle, ordering: .releasing)
            throw error
        }
    }

    private func store(_ service: Service) {
        if mode == .lazy {
            published.publish(service)
        } else {
            weakInstance?.withLock { $0.hold(service) }
        }
    }
}

/// The phases of a ``SingletonCore``.
private enum Phase {
    static let idle: UInt8 = 0
    static let making: UInt8 = 1
    /// Lazy only: made, for good.
    static let made: UInt8 = 2
}

/// What a lazy core without its factory would report; it cannot happen (see `make`).
private struct MissingFactory: Error, CustomStringConvertible {
    var description: String { "the factory is gone" }
}
