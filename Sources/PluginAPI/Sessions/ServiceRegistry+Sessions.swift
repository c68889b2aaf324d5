extension ServiceRegistry {
    /// Adds a slot whose service `factory` makes for the current session of `mediator`, and makes
    /// anew (or deactivates and reactivates) whenever that session changes.
    public func addService<Key: ServiceLocatorKey, Factory: ServiceSessionFactory>(
        key: Key, factory: Factory, mediator: ServiceSessionMediator<Factory.Session>, replace: Bool = false
    ) throws where Factory.Service == Key.Service {
        // An atOne factory makes the current session's service when the slot is built.
        let timing: ServiceRegistration.Timing = factory.mode == .atOne
            ? .runsFactory(service: Key.Service.self, isAsync: false) : .whenAdded
        try register(ServiceRegistration(key: key.storeKey, timing: timing) { origin, logger in
            let identity = ServiceIdentity(key: key.storeKey, type: Key.Service.self)
            let core = SessionCore(factory: factory, mediator: mediator, identity: identity, logger: logger)
            return ServiceSlot(key: key.storeKey, core: core, origin: origin)
        }, replace: replace)
    }
}
