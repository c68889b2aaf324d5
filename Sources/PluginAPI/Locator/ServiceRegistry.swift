/// Something services can be added to: a ``ServiceLocator``, or the ``ModuleRegistrar`` a module
/// writes through. All the `add` calls below are available on both.
///
/// Only those two can store what the `add` calls make: another type that conforms has no way to
/// receive a slot, and gets an error from every `add` call.
public protocol ServiceRegistry {}

extension ServiceRegistry {
    /// Hands `registration` to the locator or registrar this is; any other conforming type refuses.
    func register(_ registration: ServiceRegistration, replace: Bool) throws {
        if let registrar = self as? ModuleRegistrar {
            try registrar.stage(registration, replace: replace)
        } else if let locator = self as? ServiceLocator {
            try locator.register(registration, replace: replace)
        } else {
            throw NotARegistry(type: String(reflecting: Self.self), key: registration.key)
        }
    }
}

/// A type of another module conformed to ``ServiceRegistry``, which only a locator and a registrar can.
private struct NotARegistry: Error, CustomStringConvertible {
    let type: String
    let key: String
    var description: String {
        "\(type) cannot store services (adding '\(key)'): only a ServiceLocator or a ModuleRegistrar can"
    }
}

extension ServiceRegistry {
    /// Adds a slot served by `provider`.
    public func addService<Key: ServiceLocatorKey>(
        key: Key, provider: ServiceProvider<Key.Service>, replace: Bool = false
    ) throws {
        try register(ServiceRegistration(key: key.storeKey) { origin, _ in
            ServiceSlot(key: key.storeKey, core: provider.core, origin: origin)
        }, replace: replace)
    }

    /// Adds a slot with parameters served by `provider`.
    public func addService<Key: ServiceLocatorParamsKey>(
        key: Key, provider: ServiceParamsProvider<Key.Service, Key.Params>, replace: Bool = false
    ) throws {
        try register(ServiceRegistration(key: key.storeKey) { origin, _ in
            ParamsSlot(key: key.storeKey, provider: provider, origin: origin)
        }, replace: replace)
    }

    /// Adds a slot whose services `factory` makes, kept as its `mode` says. `atOne` runs it now, or,
    /// through a module's registrar, once the whole module is accepted.
    public func addService<Key: ServiceLocatorKey, Factory: ServiceFactory>(
        key: Key, factory: Factory, replace: Bool = false
    ) throws where Factory.Service == Key.Service {
        try add(key: key, mode: factory.mode, replace: replace, factory.makeService)
    }

    /// Adds a slot whose services `factory` makes from parameters.
    public func addService<Key: ServiceLocatorParamsKey, Factory: ServiceParamsFactory>(
        key: Key, factory: Factory, replace: Bool = false
    ) throws where Factory.Service == Key.Service, Factory.Params == Key.Params {
        try addService(key: key, replace: replace, factory.makeService(params:))
    }

    /// Adds a slot holding an instance that already exists (`atOne`).
    public func addService<Key: ServiceLocatorKey>(key: Key, service: Key.Service, replace: Bool = false) throws {
        try register(ServiceRegistration(key: key.storeKey) { origin, _ in
            let identity = ServiceIdentity(key: key.storeKey, type: Key.Service.self)
            return ServiceSlot(key: key.storeKey, core: ServiceCore(ready: service, identity: identity), origin: origin)
        }, replace: replace)
    }

    /// Adds a singleton slot made by `make` on its first get (`lazy`).
    public func addLazyService<Key: ServiceLocatorKey>(
        key: Key, replace: Bool = false, _ make: @escaping @Sendable () throws -> Key.Service
    ) throws {
        try add(key: key, mode: .lazy, replace: replace, make)
    }

    /// Adds a slot whose services `make` makes, kept as `mode` says: by default anew on every get
    /// (`many`); `.weak` makes one whenever none is alive; `.atOne` runs `make` now, or, through a
    /// module's registrar, once the whole module is accepted.
    public func addService<Key: ServiceLocatorKey>(
        key: Key, mode: ServiceFactoryMode = .many, replace: Bool = false,
        _ make: @escaping @Sendable () throws -> Key.Service
    ) throws {
        try add(key: key, mode: mode, replace: replace, make)
    }

    /// Adds a slot whose services `make` makes from parameters, anew on every get.
    public func addService<Key: ServiceLocatorParamsKey>(
        key: Key, replace: Bool = false, _ make: @escaping @Sendable (Key.Params) throws -> Key.Service
    ) throws {
        try register(ServiceRegistration(key: key.storeKey) { origin, logger in
            let identity = ServiceIdentity(key: key.storeKey, type: Key.Service.self)
            let provider = ServiceParamsProvider(identity: identity, logger: logger, make)
            return ParamsSlot(key: key.storeKey, provider: provider, origin: origin)
        }, replace: replace)
    }

    /// Adds a slot whose services an `async` factory makes, kept as its `mode` says; get it with
    /// ``ServiceResolver/tryServiceAsync(key:)``.
    public func addService<Key: ServiceLocatorKey, Factory: ServiceAsyncFactory>(
        key: Key, factory: Factory, replace: Bool = false
    ) throws where Factory.Service == Key.Service {
        try addAsyncService(key: key, mode: factory.mode, replace: replace, factory.makeService)
    }

    /// Adds a slot of the given mode whose services the `async` closure `make` makes.
    public func addAsyncService<Key: ServiceLocatorKey>(
        key: Key, mode: ServiceFactoryMode, replace: Bool = false,
        _ make: @escaping @Sendable () async throws -> Key.Service
    ) throws {
        // An atOne async factory starts when its slot is built.
        let timing: ServiceRegistration.Timing = mode == .atOne ? .runsFactory(service: Key.Service.self, isAsync: true)
            : .whenAdded
        try register(ServiceRegistration(key: key.storeKey, timing: timing) { origin, logger in
            let identity = ServiceIdentity(key: key.storeKey, type: Key.Service.self)
            let provider = ServiceAsyncProvider(core: AsyncCore(mode: mode, identity: identity, logger: logger, make: make))
            return AsyncSlot(key: key.storeKey, provider: provider, origin: origin)
        }, replace: replace)
    }

    private func add<Key: ServiceLocatorKey>(
        key: Key, mode: ServiceFactoryMode, replace: Bool, _ make: @escaping @Sendable () throws -> Key.Service
    ) throws {
        try register(ServiceRegistration(key: key.storeKey, mode: mode, make), replace: replace)
    }
}
