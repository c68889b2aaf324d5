import Synchronization

/// How a ``ServiceProvider`` hands out its service: one implementation per mode.
protocol ProviderCore<Service>: AnyObject, Sendable {
    associatedtype Service
    var mode: ServiceFactoryMode { get }
    var identity: ServiceIdentity { get }
    func get() throws -> Service
    /// The instance that exists now, without making one: for closing at shutdown and for sessions.
    var existing: Service? { get }
    /// The instance, if this core only ever hands out one that exists already (`atOne`). A slot
    /// asks once, when it is made; a protocol requirement, because a cast to the generic class
    /// costs a metadata lookup per slot.
    var readyInstance: Service? { get }
    /// This core, if it is a lazy singleton whose made instance a slot may read directly.
    var lazySingleton: SingletonCore<Service>? { get }
}

extension ProviderCore {
    var readyInstance: Service? { nil }
    var lazySingleton: SingletonCore<Service>? { nil }
}

/// Wraps what a factory threw so the caller sees which service failed and on what path.
@inline(__always)
func obtainError(_ error: any Error, making service: ServiceIdentity) -> ServiceObtainError {
    if let inner = error as? ServiceObtainError { return inner.nested(in: service) }
    return ServiceObtainError(service: service, error: error)
}

/// Runs a factory for `service` on the current resolution path, wrapping and logging its errors.
/// `owned` marks a singleton being made, which other threads may wait for.
@inline(__always)
func runFactory<Service>(_ cell: AnyObject, _ service: ServiceIdentity, mode: ServiceFactoryMode, owned: Bool,
                         logger: (any ServiceLogger)?,
                         _ factory: () throws -> Service) throws(ServiceObtainError) -> Service {
    let id = ObjectIdentifier(cell)
    let parent = ResolutionTracker.current
    // A cycle detected right here already names this service. One detected deeper, inside the
    // factory, is nested below like any other failure, so the path starts at the requested service.
    try ResolutionTracker.checkPath(parent, cell: id, service: service)
    do {
        let made = try ResolutionTracker.make(cell: id, service: service, parent: parent, owned: owned, factory)
        logger?.log(.made(service, mode: mode))
        return made
    } catch {
        throw factoryFailed(error, making: service, logger: logger)
    }
}

/// Wraps what a factory threw; logs it where it happened (a nested failure was logged deeper).
func factoryFailed(_ error: any Error, making service: ServiceIdentity, logger: (any ServiceLogger)?)
    -> ServiceObtainError {
    let failure = obtainError(error, making: service)
    if !failure.isNested { logger?.log(.failed(operation: "making \(service)", error: failure.error)) }
    return failure
}

/// A service that exists already (an instance handed in, or an `atOne` factory that succeeded).
final class ReadyCore<Service>: ProviderCore, @unchecked Sendable {
    // @unchecked: the service is only ever read; sharing it across threads is what a locator is for.
    let service: Service
    let identity: ServiceIdentity
    let mode: ServiceFactoryMode = .atOne

    init(_ service: Service, identity: ServiceIdentity) {
        self.service = service
        self.identity = identity
    }

    func get() throws -> Service { service }
    var existing: Service? { service }
    var readyInstance: Service? { service }
}

/// An `atOne` factory that failed: the failure is remembered and returned on every get.
final class FailedCore<Service>: ProviderCore {
    let failure: ServiceObtainError
    let identity: ServiceIdentity
    let mode: ServiceFactoryMode = .atOne

    init(_ failure: ServiceObtainError, identity: ServiceIdentity) {
        self.failure = failure
        self.identity = identity
    }

    func get() throws -> Service { throw failure }
    var existing: Service? { nil }
}

/// A service made anew on every get.
final class ManyCore<Service>: ProviderCore {
    let make: @Sendable () throws -> Service
    let identity: ServiceIdentity
    let logger: (any ServiceLogger)?
    var mode: ServiceFactoryMode { .many }

    init(identity: ServiceIdentity, logger: (any ServiceLogger)?, make: @escaping @Sendable () throws -> Service) {
        self.make = make
        self.identity = identity
        self.logger = logger
    }

    func get() throws -> Service {
        try runFactory(self, identity, mode: .many, owned: false, logger: logger, make)
    }

    var existing: Service? { nil }
}

/// Holds a made service behind an atomic reference, so reads after creation take no lock.
final class ValueBox<Service>: @unchecked Sendable {
    // @unchecked: written once, before the box is published; read-only afterwards.
    /// The value, at a stable address, so a slot that checked the type can load it with one copy.
    let pointer: UnsafeMutablePointer<Service>
    var value: Service { pointer.pointee }
    init(_ value: Service) {
        pointer = CacheLine.allocate(value)
    }
    deinit {
        CacheLine.free(pointer)
    }
}

/// Memory for a value that many threads read while other memory is written: a cache line (or
/// more) of its own. Otherwise malloc may put it beside, say, another thread's service object,
/// whose reference count that thread writes on every get, and each write would evict this value
/// from the reading core's cache (false sharing).
enum CacheLine {
    static let size = 64

    static func allocate<Value>(_ value: Value) -> UnsafeMutablePointer<Value> {
        let bytes = (MemoryLayout<Value>.size + size - 1) / size * size
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, size), alignment: size)
        let pointer = raw.bindMemory(to: Value.self, capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }

    static func free<Value>(_ pointer: UnsafeMutablePointer<Value>) {
        pointer.deinitialize(count: 1)
        UnsafeMutableRawPointer(pointer).deallocate()
    }
}

/// A singleton made on first use (`lazy`), or made again whenever no one holds it (`weak`).
///
/// Exactly once: a caller that moves `phase` from idle to making is the one maker; others sleep in
/// ``WaitStripes`` until the phase changes, so only callers of this one service ever wait for it,
/// and a slow factory blocks nobody else. Before waiting, a caller asks the tracker whether the maker
/// (through any chain of waits) is waiting for it: then it is a cycle, reported as an error instead of
/// a deadlock. The core holds no lock of its own: an atomic phase and the factory, about 100 bytes
/// less per slot than a mutex.
final class SingletonCore<Service>: ProviderCore, @unchecked Sendable {
    // @unchecked: `factory` is touched only by the one maker (the phase's compare-exchange hands it
    // over); the rest is atomic, published once, or behind a lock.
    typealias Factory = @Sendable () throws -> Service
    // Field order matters for size: the two one-byte fields sit together.
    let identity: ServiceIdentity
    let mode: ServiceFactoryMode
    private let phase = Atomic<UInt8>(Phase.idle)
    /// Boxed: most locators have no logger, and a bare optional existential costs 41 bytes per core.
    private let loggerBox: LoggerBox?
    var logger: (any ServiceLogger)? { loggerBox?.logger }
    /// The factory; a lazy service lets go of it (and what it captured) once made.
    private var factory: Factory?
    private let made = PublishedOnce<ValueBox<Service>>()
    /// The weak mode's instance; only a weak service has one.
    private let weakInstance: Lock<WeakReference<Service>>?

    /// `mode` is `.lazy` or `.weak`. A `seed` is taken as made already (a session's service coming back).
    init(mode: ServiceFactoryMode, identity: ServiceIdentity, logger: (any ServiceLogger)?, seed: Service? = nil,
         factory: @escaping Factory) {
        self.mode = mode
        self.identity = identity
        loggerBox = logger.map(LoggerBox.init)
        weakInstance = mode == .weak ? Lock(WeakReference<Service>()) : nil
        self.factory = factory
        if let seed {
            store(seed)
            if mode == .lazy { phase.store(Phase.made, ordering: .releasing) }
        }
    }

    func get() throws -> Service {
        if let existing = current() { return existing }
        return try makeOrWait()
    }

    var existing: Service? { current() }
    var lazySingleton: SingletonCore<Service>? { mode == .lazy ? self : nil }

    /// Where the lazy instance lives once made (it stays there as long as this core), or nil.
    @inline(__always)
    var madePointer: UnsafeRawPointer? {
        made.withValue { UnsafeRawPointer($0.pointer) }
    }

    /// The instance that exists now, if any.
    @inline(__always)
    private func current() -> Service? {
        if mode == .lazy { return made.withValue { $0.value } }
        return weakInstance?.withLock { $0.service() }
    }

    private func makeOrWait() throws -> Service {
        let parent = ResolutionTracker.current
        let cell = ObjectIdentifier(self)
        try ResolutionTracker.checkPath(parent, cell: cell, service: identity)
        while true {
            if phase.compareExchange(expected: Phase.idle, desired: Phase.making, ordering: .acquiringAndReleasing).exchanged {
                return try make(parent: parent)
            }
            if let existing = current() { return existing }
            // Another thread is making it: wait for that, unless the wait would close a cycle.
            let wait = try ResolutionTracker.beginWait(parent, cell: cell, service: identity)
            WaitStripes.wait(for: self) { phase.load(ordering: .acquiring) != Phase.making }
            ResolutionTracker.endWait(wait)
            if let existing = current() { return existing }
        }
    }

    /// Runs the factory as the one maker, then hands the phase back (or marks a lazy service made).
    private func make(parent: ResolutionFrame?) throws -> Service {
        defer { WaitStripes.wake(self) }
        // A maker that finished between this caller's look and its compare-exchange left an instance.
        if let existing = current(), mode == .weak {
            phase.store(Phase.idle, ordering: .releasing)
            return existing
        }
        guard let make = factory else {
            // Unreachable: only a made lazy service drops its factory, and it never goes back to idle.
            phase.store(Phase.idle, ordering: .releasing)
            throw ServiceObtainError(service: identity, error: MissingFactory())
        }
        do {
            let service = try runFactory(self, identity, mode: mode, owned: true, logger: logger, make)
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
            made.storeIfNil(ValueBox(service))
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

/// A logger behind one reference.
final class LoggerBox: Sendable {
    let logger: any ServiceLogger
    init(_ logger: any ServiceLogger) {
        self.logger = logger
    }
}

/// What a lazy core without its factory would report; it cannot happen (see `make`).
private struct MissingFactory: Error, CustomStringConvertible {
    var description: String { "the factory is gone" }
}

/// A service held weakly, read back without a dynamic cast. Used under a lock.
///
/// Beside the weak reference it keeps the service's own bits (an existential, say), copied without
/// retaining anything. They are read, as a proper retained copy, only while the strong reference the
/// weak load produced keeps that same object alive; once the object is gone the weak load fails
/// first and the stale bits are never read. Casting `AnyObject` back to a protocol instead costs a
/// conformance lookup on every get.
final class WeakReference<Service>: @unchecked Sendable {
    // @unchecked: only used with its owner's lock held.
    private weak var object: AnyObject?
    /// The service's bits; they own nothing, so nothing is released when they are overwritten.
    private let bits = UnsafeMutableRawPointer.allocate(byteCount: max(MemoryLayout<Service>.size, 1),
                                                        alignment: MemoryLayout<Service>.alignment)
    private var holding = false

    deinit {
        bits.deallocate()
    }

    /// Holds `service` weakly if it is a class instance; a value cannot be held weakly.
    func hold(_ service: Service) {
        guard type(of: service as Any) is AnyClass else {
            object = nil
            holding = false
            return
        }
        object = service as AnyObject
        withUnsafeBytes(of: service) { raw in
            if let base = raw.baseAddress { bits.copyMemory(from: base, byteCount: raw.count) }
        }
        holding = true
    }

    /// The service, if the object is still alive.
    func service() -> Service? {
        guard holding, let alive = object else { return nil }
        return withExtendedLifetime(alive) { bits.load(as: Service.self) }
    }
}
