import Synchronization

/// A dynamic container of services, each in a slot addressed by a string key and checked by type.
///
/// Fill it with the `add` calls of ``ServiceRegistry`` or with ``addModule(_:replace:)``, then call
/// ``setReadOnly(denyClone:)``: from then on every mutation throws ``ServiceLocatorError/readOnly(operation:)``
/// and a get takes no lock. Any number of threads may get at once, before and after.
///
/// ```swift
/// let locator = ServiceLocator()
/// try locator.addLazyService(key: Keys.greeter) { EnglishGreeter() }
/// locator.setReadOnly()
/// let greeter = try locator.tryService(key: Keys.greeter)
/// ```
public final class ServiceLocator: ServiceRegistry, Sendable {
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
    public let logger: (any ServiceLogger)?

    /// An empty, mutable locator.
    public init(logger: (any ServiceLogger)? = nil) {
        self.logger = logger
        state = Lock(State(slots: [:]))
    }

    private init(slots: [SlotKey: AnySlot], logger: (any ServiceLogger)?) {
        self.logger = logger
        state = Lock(State(slots: slots))
    }

    // MARK: Getting services

    /// The service for `key`, or `nil` if there is none or it could not be made.
    // @inlinable: compiled into the caller, which knows `Key`, so the optional result needs no
    // runtime lookup of the key's associated type (57 instructions per get once PluginAPI is
    // built for library evolution). Its body only calls `tryService(key:)` and can never change.
    @inlinable
    public func getService<Key: ServiceLocatorKey>(key: Key) -> Key.Service? {
        try? tryService(key: key)
    }

    /// The service for `key`, or the reason there is none: a ``ServiceLocatorError`` (missing key, wrong
    /// type or parameters) or a ``ServiceObtainError`` (its factory failed).
    public func tryService<Key: ServiceLocatorKey>(key: Key) throws -> Key.Service {
        do {
            // Read-only: borrow the key's string and the slot, retaining neither.
            if let found = key.withStoreKey({ storeKey in frozen.withValue { $0.lookup(storeKey) } }), let slot = found {
                return try slot._withUnsafeGuaranteedRef {
                    try $0.served()._withUnsafeGuaranteedRef { try $0.service(as: Key.Service.self) }
                }
            }
            return try slot(for: key).service(as: Key.Service.self)
        } catch {
            throw failed("get '\(key.storeKey)'", error)
        }
    }

    /// The service for `key`; stops the program with the full reason if there is none.
    public func getServiceOrFatal<Key: ServiceLocatorKey>(key: Key, file: StaticString = #fileID, line: UInt = #line)
        -> Key.Service {
        do {
            return try tryService(key: key)
        } catch {
            fatalError(failureMessage(error), file: file, line: line)
        }
    }

    /// The service for `key`, awaited: the way to get a slot whose factory is `async` (see
    /// ``ServiceAsyncFactory``). Waiting suspends the task, never blocks its thread. Other slots are
    /// gotten as ``tryService(key:)`` gets them.
    public func tryServiceAsync<Key: ServiceLocatorKey>(key: Key) async throws -> Key.Service {
        do {
            return try await slot(for: key).asyncService(as: Key.Service.self)
        } catch {
            throw failed("get '\(key.storeKey)'", error)
        }
    }

    /// The service for `key`, awaited, or `nil` if there is none or it could not be made.
    public func getServiceAsync<Key: ServiceLocatorKey>(key: Key) async -> Key.Service? {
        try? await tryServiceAsync(key: key)
    }

    /// The provider of the async slot `key`, or the reason there is none.
    public func tryServiceAsyncProvider<Key: ServiceLocatorKey>(key: Key) throws -> ServiceAsyncProvider<Key.Service> {
        try slot(for: key).asyncProvider(as: Key.Service.self)
    }

    /// A service made for `params`, or `nil`.
    public func getService<Key: ServiceLocatorParamsKey>(key: Key, params: Key.Params) -> Key.Service? {
        try? tryService(key: key, params: params)
    }

    /// A service made for `params`, or the reason there is none.
    public func tryService<Key: ServiceLocatorParamsKey>(key: Key, params: Key.Params) throws -> Key.Service {
        do {
            return try slot(for: key).service(as: Key.Service.self, params: params)
        } catch {
            throw failed("get '\(key.storeKey)'", error)
        }
    }

    /// A service made for `params`; stops the program with the full reason if there is none.
    public func getServiceOrFatal<Key: ServiceLocatorParamsKey>(
        key: Key, params: Key.Params, file: StaticString = #fileID, line: UInt = #line
    ) -> Key.Service {
        do {
            return try tryService(key: key, params: params)
        } catch {
            fatalError(failureMessage(error), file: file, line: line)
        }
    }

    /// The provider behind `key`, or `nil`. Holding a provider skips the key lookup on later gets.
    public func getServiceProvider<Key: ServiceLocatorKey>(key: Key) -> ServiceProvider<Key.Service>? {
        try? tryServiceProvider(key: key)
    }

    /// The provider behind `key`, or the reason there is none.
    public func tryServiceProvider<Key: ServiceLocatorKey>(key: Key) throws -> ServiceProvider<Key.Service> {
        try slot(for: key).provider(as: Key.Service.self)
    }

    /// The provider with parameters behind `key`, or `nil`.
    public func getServiceProvider<Key: ServiceLocatorParamsKey>(key: Key)
        -> ServiceParamsProvider<Key.Service, Key.Params>? {
        try? tryServiceProvider(key: key)
    }

    /// The provider with parameters behind `key`, or the reason there is none.
    public func tryServiceProvider<Key: ServiceLocatorParamsKey>(key: Key) throws
        -> ServiceParamsProvider<Key.Service, Key.Params> {
        try slot(for: key).paramsProvider(as: Key.Service.self, params: Key.Params.self)
    }

    /// The service in the slot `storeKey`, whatever its type: for tools that know only the string,
    /// such as a command line that resolves a key. A slot with parameters works if they are optional.
    public func tryAnyService(storeKey: String) throws -> Any {
        do {
            guard let slot = existingSlot(storeKey) else {
                throw ServiceLocatorError.serviceNotFound(key: storeKey, requested: "Any", closeMatches: [])
            }
            return try slot.servedSlot.anyService()
        } catch {
            throw failed("get '\(storeKey)'", error)
        }
    }

    /// The service made for `params` by the slot `storeKey`, whatever its types: for tools that know
    /// only the store key and the slot's ``ServiceSlotInfo/paramsType`` (a command line, say). Throws
    /// ``ServiceLocatorError/wrongParams(key:registered:requested:)`` unless `params` is of the slot's
    /// parameters type.
    public func tryAnyService(storeKey: String, params: Any) throws -> Any {
        do {
            guard let slot = existingSlot(storeKey) else {
                throw ServiceLocatorError.serviceNotFound(key: storeKey, requested: "Any", closeMatches: [])
            }
            return try slot.servedSlot.anyService(params: params)
        } catch {
            throw failed("get '\(storeKey)'", error)
        }
    }

    /// The service of the slot `storeKey`, whatever its type, awaited if its factory is `async`.
    public func tryAnyServiceAsync(storeKey: String) async throws -> Any {
        do {
            guard let slot = existingSlot(storeKey) else {
                throw ServiceLocatorError.serviceNotFound(key: storeKey, requested: "Any", closeMatches: [])
            }
            return try await slot.servedSlot.anyServiceAsync()
        } catch {
            throw failed("get '\(storeKey)'", error)
        }
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

    /// Adds the slot `registration` describes (the `add` calls of ``ServiceRegistry`` end here).
    @_spi(Internals)
    public func register(_ registration: ServiceRegistration, replace: Bool) throws {
        let key = registration.key
        let slotKey = SlotKey(key)
        do {
            // A slot whose building runs its factory (atOne) is built only for a free key, and outside
            // the lock: the factory may itself get services from here. Any other slot is checked once.
            if registration.runsFactory {
                try state.withLock { try Self.checkFree(slotKey, in: $0, replace: replace, by: nil, operation: "addService") }
            }
            let slot = registration.makeSlot(origin: nil, logger: logger)
            try state.withLock { state in
                try Self.checkFree(slotKey, in: state, replace: replace, by: nil, operation: "addService")
                state.slots[slotKey] = slot
            }
            logger?.log(.registered(slot.info))
        } catch {
            throw failed("add '\(key)'", error)
        }
    }

    /// Removes the slot for `key`. Returns false if there was none.
    @discardableResult
    public func removeService<Key: ServiceLocatorKey>(key: Key) throws -> Bool {
        try removeService(storeKey: key.storeKey)
    }

    /// Removes the slot whose store key is `storeKey`, whatever its type. Returns false if there was none.
    @discardableResult
    public func removeService(storeKey: String) throws -> Bool {
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
    public func addModule(_ module: some Module, replace: Bool = false,
                          check: (([ServiceSlotInfo]) throws -> Void)? = nil) throws {
        try addModule(module, replace: replace, services: ServiceResolver(self), check: check)
    }

    /// ``addModule(_:replace:check:)`` whose registrar lends the module `services` (a host's resolver,
    /// which follows the host's current services) instead of a resolver of this locator.
    @_spi(HostKit)
    public func addModule(_ module: some Module, replace: Bool = false, services: ServiceResolver,
                          check: (([ServiceSlotInfo]) throws -> Void)? = nil) throws {
        let name = module.name
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
                        staged[index].slot = unbuilt.registration.makeSlot(origin: name, logger: logger)
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
        return ServiceLocator(slots: slots, logger: logger)
    }

    // MARK: Introspection

    /// Every slot, sorted by key.
    public var slots: [ServiceSlotInfo] {
        allSlots.map(\.info).sorted { $0.key < $1.key }
    }

    /// How many slots there are.
    public var slotCount: Int {
        withSlots(frozen: \.count, mutable: \.count)
    }

    /// The slot for `key`, if any.
    public func slotInfo(forKey key: String) -> ServiceSlotInfo? {
        existingSlot(key)?.info
    }

    /// The service in slot `key` if it exists now, without making one: the instance of an `atOne`
    /// slot, a `lazy` one once made, a `weak` one while held. A host uses it to close services at
    /// shutdown.
    public func existingService(forKey key: String) -> Any? {
        existingSlot(key)?.servedIfBuilt?.existingService
    }
}
