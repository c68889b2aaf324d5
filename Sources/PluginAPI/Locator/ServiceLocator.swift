import Synchronization

/// A dynamic container of services, each in a slot addressed by a string key and checked by type.
///
/// Fill it with the `add` calls of ``ServiceRegistry`` or with ``addModule(_:replace:services:check:)``, then call
/// ``setReadOnly(denyClone:)``: from then on every mutation throws ``ServiceLocatorError/readOnly(operation:)``
/// and a get takes no lock. Any number of threads may get at once, before and after.
///
/// ```swift
/// let locator = ServiceLocator()
/// try locator.addLazyService(key: Keys.greeter) { EnglishGreeter() }
/// locator.setReadOnly()
/// let greeter = try locator.tryService(key: Keys.greeter)
/// ```
public final class ServiceLocator: ServiceResolver, ServiceRegistry, @unchecked Sendable {
    private struct State {
        var slots: [SlotKey: AnySlot]
        var isReadOnly = false
        var denyClone = false
        /// Frozen tables replaced by ``withdraw(_:)``: kept as long as the locator, because a get
        /// that began before the replacement may still be borrowing a slot from one.
        var retired: [FrozenSlots] = []
    }

    private let state: Lock<State>
    /// The slots once read-only: published once, then read without a lock. They move there from
    /// `state` (which is emptied), so a read-only locator keeps one table, not two.
    private let frozen = PublishedOnce<FrozenSlots>()
    /// Where this locator reports what it does; `nil` keeps it silent.
    let logger: (any ServiceLogger)?
    /// What counts the gets and services made of each slot it adds; `nil` counts nothing.
    let metrics: (any ServiceMetrics)?

    /// An empty, mutable locator that reports what it does to `logger`, if any.
    public init(logger: (any ServiceLogger)? = nil) {
        self.logger = logger
        metrics = nil
        state = Lock(State(slots: [:]))
        super.init()
    }

    /// An empty, mutable locator that reports what it does to `logger`, if any, and counts each slot
    /// it adds, and each of its clones adds, with `metrics`: the gets, the failed gets, the services
    /// made and how long their factories took.
    public init(logger: (any ServiceLogger)? = nil, metrics: (any ServiceMetrics)?) {
        self.logger = logger
        self.metrics = metrics
        state = Lock(State(slots: [:]))
        super.init()
    }

    private init(slots: [SlotKey: AnySlot], logger: (any ServiceLogger)?, metrics: (any ServiceMetrics)?) {
        self.logger = logger
        self.metrics = metrics
        state = Lock(State(slots: slots))
        super.init()
    }

    /// The slot `registration` describes, added by `origin`. With ``metrics``, it is wrapped in a
    /// ``CountingSlot`` and its factories report through a ``CountingLogger``, which times them;
    /// without, it is the slot itself, and a get of it runs no code of the metrics at all.
    func makeSlot(_ registration: ServiceRegistration, origin: String?) -> AnySlot {
        guard let metrics else { return registration.makeSlot(origin: origin, logger: logger) }
        let counters = metrics.counters(forKey: registration.key, origin: origin)
        let slot = registration.makeSlot(origin: origin, logger: CountingLogger(base: logger, counters: counters))
        return CountingSlot(slot, counters: counters)
    }

    // MARK: Getting services (the public gets are ServiceResolver's)

    /// The service for `key`: the path of every plain get. Through a resolver lent to a plugin, only
    /// if `grant` allows the key, checked with the hash the lookup computes.
    @inline(__always)
    func service<Key: ServiceLocatorKey>(key: Key, grantedBy grant: GrantedKeys? = nil) throws -> Key.Service {
        do {
            // Read-only: borrow the key's string and the slot, retaining neither.
            let found = try key.withStoreKey { storeKey in
                let hash = StoreKeyHash.of(storeKey)
                if let grant, !grant.allows(storeKey, hash: hash) {
                    throw ServiceLocatorError.notGranted(key: copy storeKey, plugin: grant.plugin)
                }
                return frozen.withValue { $0.lookup(storeKey, hash: hash) }
            }
            if let found, let slot = found {
                return try slot._withUnsafeGuaranteedRef {
                    try $0.served()._withUnsafeGuaranteedRef { try $0.service(as: Key.Service.self) }
                }
            }
            return try slot(for: key).service(as: Key.Service.self)
        } catch {
            throw failed("get '\(key.storeKey)'", error)
        }
    }

    /// Throws ``ServiceLocatorError/notGranted(key:plugin:)``, logged as a failed get, unless `grant`
    /// allows `storeKey`.
    func check(_ storeKey: String, grantedBy grant: GrantedKeys) throws {
        guard !grant.allows(storeKey) else { return }
        throw failed("get '\(storeKey)'", ServiceLocatorError.notGranted(key: storeKey, plugin: grant.plugin))
    }

    func service<Key: ServiceLocatorParamsKey>(key: Key, params: Key.Params) throws -> Key.Service {
        do {
            return try slot(for: key).service(as: Key.Service.self, params: params)
        } catch {
            throw failed("get '\(key.storeKey)'", error)
        }
    }

    func asyncService<Key: ServiceLocatorKey>(key: Key) async throws -> Key.Service {
        do {
            return try await slot(for: key).asyncService(as: Key.Service.self)
        } catch {
            throw failed("get '\(key.storeKey)'", error)
        }
    }

    func provider<Key: ServiceLocatorKey>(key: Key) throws -> ServiceProvider<Key.Service> {
        try slot(for: key).provider(as: Key.Service.self)
    }

    func paramsProvider<Key: ServiceLocatorParamsKey>(key: Key) throws -> ServiceParamsProvider<Key.Service, Key.Params> {
        try slot(for: key).paramsProvider(as: Key.Service.self, params: Key.Params.self)
    }

    func asyncProvider<Key: ServiceLocatorKey>(key: Key) throws -> ServiceAsyncProvider<Key.Service> {
        try slot(for: key).asyncProvider(as: Key.Service.self)
    }

    /// The service in the slot `storeKey`, whatever its types, awaited if its factory is `async`: for
    /// tools that know only the string, such as a command line that resolves a key. With `params`, the
    /// service made for them (``ServiceLocatorError/wrongParams(key:registered:requested:)`` unless
    /// they are of the slot's ``ServiceSlotInfo/paramsType``); without, a slot with parameters works
    /// if they are optional.
    @_spi(HostKit)
    public func anyService(storeKey: String, params: Any? = nil) async throws -> Any {
        do {
            let slot = try anySlot(storeKey)
            if let params { return try slot.anyService(params: params) }
            return try await slot.anyServiceAsync()
        } catch {
            throw failed("get '\(storeKey)'", error)
        }
    }

    private func anySlot(_ storeKey: String) throws -> AnySlot {
        guard let slot = existingSlot(storeKey) else {
            throw ServiceLocatorError.serviceNotFound(key: storeKey, requested: "Any", closeMatches: [])
        }
        return slot.servedSlot
    }

    /// The slot that serves `key`'s requests (see ``AnySlot/served()``), or `serviceNotFound`.
    @inline(__always)
    private func slot<Key: ServiceLocatorKey>(for key: Key) throws -> AnySlot {
        let storeKey = key.storeKey
        if let found = existingSlot(storeKey) {
            return found.servedSlot
        }
        let requested = ObjectIdentifier(Key.Service.self)
        let similar = allSlots.filter { $0.serviceType == requested }.map(\.key).sorted()
        throw ServiceLocatorError.serviceNotFound(
            key: storeKey, requested: String(reflecting: Key.Service.self), closeMatches: similar)
    }

    private var allSlots: [AnySlot] {
        withSlots(frozen: \.all, mutable: { Array($0.values) })
    }

    /// `frozen` applied to the frozen table once read-only, else `mutable` to the slots, under the lock.
    /// Which one is decided under the lock: ``setReadOnly(denyClone:)`` publishes the frozen table
    /// before it empties the slots, both under the lock, so a reader racing it still sees every slot.
    private func withSlots<R>(frozen inFrozen: (FrozenSlots) -> R, mutable inMutable: ([SlotKey: AnySlot]) -> R) -> R {
        if let result = frozen.withValue(inFrozen) { return result }
        if let result = state.withLock({ $0.isReadOnly ? nil : inMutable($0.slots) }) { return result }
        // Made read-only since the first look: the frozen table was published under the same lock
        // hold that set `isReadOnly`, so it is there (the empty fallback only spares an unwrap).
        return frozen.withValue(inFrozen) ?? inMutable([:])
    }

    private func failed(_ operation: String, _ error: any Error) -> any Error {
        logger?.log(.failed(operation: operation, error: error))
        return error
    }

    // MARK: Changing slots

    /// Adds the slot `registration` describes (the `add` calls of ``ServiceRegistry`` end here), as
    /// added by `origin` (`nil` for a direct add; a host names the plugin whose proxy it adds).
    func register(_ registration: ServiceRegistration, replace: Bool, origin: String? = nil) throws {
        let key = registration.key
        let slotKey = SlotKey(key)
        do {
            // A slot whose building runs its factory (atOne) is built only for a free key, and outside
            // the lock: the factory may itself get services from here. Any other slot is checked once.
            if registration.runsFactory {
                try state.withLock { try Self.checkFree(slotKey, in: $0, replace: replace, by: origin, operation: "addService") }
            }
            let slot = makeSlot(registration, origin: origin)
            try state.withLock { state in
                try Self.checkFree(slotKey, in: state, replace: replace, by: origin, operation: "addService")
                state.slots[slotKey] = slot
            }
            logger?.log(.registered(slot.info))
        } catch {
            throw failed("add '\(key)'", error)
        }
    }

    /// Removes the slot for `key`. Returns false if there was none; throws
    /// ``ServiceLocatorError/readOnly(operation:)`` once read-only.
    @discardableResult
    public func removeService<Key: ServiceLocatorKey>(key: Key) throws -> Bool {
        let storeKey = key.storeKey
        do {
            let removed = try state.withLock { state in
                guard !state.isReadOnly else { throw ServiceLocatorError.readOnly(operation: "removeService") }
                return state.slots.removeValue(forKey: SlotKey(storeKey)) != nil
            }
            if removed { logger?.log(.removed(key: storeKey)) }
            return removed
        } catch {
            throw failed("remove '\(storeKey)'", error)
        }
    }

    /// Adds every slot of `module`, or none: if the module throws, or one of its keys is taken (and
    /// `replace` is false), the locator is left as it was and ``ServiceLocatorError/moduleFailed(module:error:)``
    /// says why. Factories of the module may capture ``ModuleRegistrar/services`` to get other services.
    ///
    /// `check` sees the module's slots before they are added; if it throws, none is added. A plugin
    /// host uses it to hold a module to the keys its plugin declared.
    ///
    /// The module's `atOne` factories run once it is accepted (every key free, `check` passed), in the
    /// order they were added: a refused module has run none of them.
    ///
    /// The registrar lends the module `services` if given (a host lends a resolver that follows its
    /// current services), else a resolver of this locator: never the locator itself.
    public func addModule(_ module: some Module, replace: Bool = false, services: ServiceResolver? = nil,
                          check: (([ServiceSlotInfo]) throws -> Void)? = nil) throws {
        let name = module.name
        let services = services ?? ServiceResolver(source: ServiceSource(self))
        do {
            try state.withLock { state in
                guard !state.isReadOnly else { throw ServiceLocatorError.readOnly(operation: "addModule") }
            }
            let registrar = ModuleRegistrar(locator: self, services: services, module: name, replace: replace)
            defer { registrar.close() }
            do {
                try module.registerServices(in: registrar)
                try check?(registrar.staged.map(\.slot.info))
            } catch {
                throw ServiceLocatorError.moduleFailed(module: name, error: error)
            }
            // Accepted: the slots whose building runs their factory (atOne) are built now, in the order
            // they were added, outside the lock (a factory may get services from this locator).
            var staged = registrar.staged
            if registrar.unbuiltCount > 0 {
                for index in staged.indices {
                    if let unbuilt = staged[index].slot as? UnbuiltSlot {
                        staged[index].slot = makeSlot(unbuilt.registration, origin: name)
                    }
                }
            }
            try state.withLock { state in
                for (slotKey, _, replace) in staged {
                    do {
                        try Self.checkFree(slotKey, in: state, replace: replace, by: name, operation: "addModule")
                    } catch let error as ServiceLocatorError {
                        if case .readOnly = error { throw error }
                        throw ServiceLocatorError.moduleFailed(module: name, error: error)
                    }
                }
                state.slots.reserveCapacity(state.slots.count + staged.count)
                for (slotKey, slot, _) in staged { state.slots[slotKey] = slot }
            }
            if let logger {
                for entry in staged { logger.log(.registered(entry.slot.info)) }
                logger.log(.moduleAdded(module: name, keys: staged.map(\.slot.key)))
            }
        } catch {
            throw failed("add module '\(name)'", error)
        }
    }

    /// Whether `key` is free for a new slot from `origin`, given the current state.
    private static func checkFree(_ key: SlotKey, in state: State, replace: Bool, by origin: String?,
                                  operation: String) throws {
        // `origin` is nil for a direct add, the module's name for `addModule`.
        guard !state.isReadOnly else { throw ServiceLocatorError.readOnly(operation: operation) }
        if !replace, let existing = state.slots[key] {
            throw ServiceLocatorError.keyAlreadyRegistered(key: key.key, registeredBy: existing.origin, attemptedBy: origin)
        }
    }

    /// The slot for `key`, if any; registrars use it to refuse a taken key early.
    func existingSlot(_ key: String) -> AnySlot? {
        existingSlot(SlotKey(key))
    }

    func existingSlot(_ key: SlotKey) -> AnySlot? {
        withSlots(frozen: { $0.lookup(key.key, hash: key.hash)?.takeUnretainedValue() }, mutable: { $0[key] })
    }

    // MARK: Read-only and cloning

    /// Freezes the slots: from now on every add, replace, remove or `addModule` throws
    /// ``ServiceLocatorError/readOnly(operation:)`` and changes nothing, and gets take no lock.
    /// With `denyClone`, ``clone()`` is refused too. Calling it again can only tighten: a later call
    /// with `denyClone` turns clone denial on; nothing turns it off.
    public func setReadOnly(denyClone: Bool = true) {
        let count: Int? = state.withLock { state in
            guard !state.isReadOnly else {
                if denyClone { state.denyClone = true }
                return nil
            }
            state.isReadOnly = true
            state.denyClone = denyClone
            let count = state.slots.count
            frozen.storeIfNil(FrozenSlots(state.slots))
            state.slots = [:]
            return count
        }
        if let count { logger?.log(.madeReadOnly(slotCount: count)) }
    }

    /// Removes the slots of `keys`, read-only or not: for a host whose plugin failed to start after
    /// the locator was made read-only, so that nothing reaches that plugin's services any more, not
    /// even through a resolver kept from its registrar. Gets still take no lock: a read-only locator
    /// publishes a new frozen table, and keeps the old one (a get may still be reading it).
    @_spi(HostKit)
    public func withdraw(_ keys: [String]) {
        guard !keys.isEmpty else { return }
        let removed: [String] = state.withLock { state in
            guard state.isReadOnly, let table = frozen.unretained?.takeUnretainedValue() else {
                return keys.filter { state.slots.removeValue(forKey: SlotKey($0)) != nil }
            }
            var slots = table.dictionary
            let removed = keys.filter { slots.removeValue(forKey: SlotKey($0)) != nil }
            if let old = frozen.exchange(FrozenSlots(slots)) { state.retired.append(old.takeRetainedValue()) }
            return removed
        }
        if let logger { removed.forEach { logger.log(.removed(key: $0)) } }
    }

    /// True once ``setReadOnly(denyClone:)`` was called.
    public var isReadOnly: Bool { frozen.isSet }

    /// True if the locator is read-only and refuses to be cloned.
    public var denyClone: Bool { state.withLock { $0.denyClone } }

    /// A new, mutable locator with the same slots and logger.
    ///
    /// The clone shares each slot's provider with the original: a singleton, made before or after
    /// cloning, is one instance for both. Adding, replacing or removing slots in one never changes the
    /// other. This is what a host needs to load more plugins beside a live, read-only locator and swap.
    public func clone() throws -> ServiceLocator {
        let mutable: [SlotKey: AnySlot]? = try state.withLock { state in
            guard !state.denyClone else { throw ServiceLocatorError.cloneDenied }
            return state.isReadOnly ? nil : state.slots
        }
        // Read-only: the slots moved to `frozen` (published before `isReadOnly` was set).
        let slots = mutable ?? frozen.withValue { $0.dictionary } ?? [:]
        return ServiceLocator(slots: slots, logger: logger, metrics: metrics)
    }

    /// ``clone()``, whose slots added from now on are counted by `metrics` instead (a host that counts
    /// its plugins' slots, on a base locator of its own that counts nothing).
    @_spi(HostKit)
    public func clone(countingWith metrics: (any ServiceMetrics)?) throws -> ServiceLocator {
        let clone = try self.clone()
        return ServiceLocator(slots: clone.state.withLock { $0.slots }, logger: logger, metrics: metrics)
    }

    // MARK: Introspection

    /// Every slot's description, sorted by key (``ServiceResolver/slots``).
    var slotInfos: [ServiceSlotInfo] {
        allSlots.map(\.info).sorted { $0.key < $1.key }
    }

    /// The service in slot `key` if it exists now, without making one: the instance of an `atOne`
    /// slot, a `lazy` one once made, a `weak` one while held. A host uses it to close services at
    /// shutdown.
    @_spi(HostKit)
    public func existingService(forKey key: String) -> Any? {
        existingSlot(key)?.servedIfBuilt?.existingService
    }
}
