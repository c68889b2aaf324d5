/// How a ``ServiceProvider`` hands out its service.
///
/// This class is the core of a service that exists already (an instance handed in, or an `atOne`
/// factory that succeeded): it is published once, at a stable address, and every get reads it there
/// without a call, a lock or a reference count on the core. The subclasses are the other ways:
/// ``FailedCore`` (an `atOne` factory that failed), ``ManyCore``, ``SingletonCore`` (`lazy`, which
/// publishes its instance once made, and `weak`) and ``SessionCore``. Each overrides
/// ``obtain()``, what a get does while nothing is published.
class ServiceCore<Service: Sendable>: @unchecked Sendable {
    // @unchecked: a class with subclasses cannot be checked; every stored property here is
    // immutable or a `PublishedValue`, and each subclass says why it is safe.
    let identity: ServiceIdentity
    let mode: ServiceFactoryMode
    let published = PublishedValue<Service>()

    /// A core handing out `service`, which exists already.
    init(ready service: Service, identity: ServiceIdentity) {
        self.identity = identity
        mode = .atOne
        published.publish(service)
    }

    /// For subclasses: a core with nothing published yet.
    init(identity: ServiceIdentity, mode: ServiceFactoryMode) {
        self.identity = identity
        self.mode = mode
    }

    /// The service, as `S`, which must be `Service` (a slot checked it): where every plain get ends (gets with
    /// parameters and async gets have cores of their own).
    @inline(__always)
    final func get<S>(as type: S.Type) throws -> S {
        if let instance = published.pointer { return instance.load(as: S.self) }
        return unsafeBitCast(try obtain(), to: S.self)
    }

    /// The service.
    @inline(__always)
    final func get() throws -> Service {
        try get(as: Service.self)
    }

    /// What a get does while nothing is published. This class publishes its service when made, so
    /// only a subclass gets here, and each overrides it.
    func obtain() throws -> Service {
        throw ServiceObtainError(service: identity, error: NothingPublished())
    }

    /// The instance that exists now, without making one: for closing at shutdown and for sessions.
    var existing: Service? {
        published.pointer?.load(as: Service.self)
    }

    /// A core of `mode` whose services `make` makes; an `atOne` factory runs now. A `seed` is a
    /// service made before (a session's, coming back) to hand out instead of making one.
    static func make(mode: ServiceFactoryMode, identity: ServiceIdentity, logger: (any ServiceLogger)?,
                     seed: Service? = nil, _ make: @escaping @Sendable () throws -> Service) -> ServiceCore<Service> {
        switch mode {
        case .atOne:
            if let seed { return ServiceCore(ready: seed, identity: identity) }
            do {
                let service = try runFactory(AtOneCell(), identity, mode: .atOne, owned: false, logger: logger, make)
                return ServiceCore(ready: service, identity: identity)
            } catch {
                return FailedCore(error, identity: identity)
            }
        case .lazy, .weak:
            return SingletonCore(mode: mode, identity: identity, logger: logger, seed: seed, factory: make)
        case .many:
            return ManyCore(identity: identity, logger: logger, make: make)
        }
    }
}

/// A cell identity for an `atOne` factory, which runs once while its core is made.
private final class AtOneCell {}

/// What ``ServiceCore/obtain()`` reports if a subclass did not override it; cannot happen.
private struct NothingPublished: Error, CustomStringConvertible {
    var description: String { "the service was never made" }
}
