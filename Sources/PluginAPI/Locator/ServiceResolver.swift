/// Gets services, and changes nothing: what a module gets services through, and the get half of
/// every ``ServiceLocator`` (a locator is a resolver that can also be changed).
///
/// A module's registrar hands it one (``ModuleRegistrar/services``), and so does its start hook
/// (``Module/start(services:)``). That resolver is a resolver only: it has no add, replace or remove,
/// no `addModule`, no read-only switch and no clone, and it is not a locator under another type, so
/// no cast turns it into one. A plugin reads the services of its host through it and changes none of
/// them (as in Swinject, where factories get a `Resolver`).
///
/// The resolver a host lends reads the host's **current** services: while a load runs, those
/// registered so far; once the load is published, the host's published ones, also after later
/// loads. So a factory that captures it reaches what the host serves when the factory runs.
///
/// It reads only the keys its plugin declared: those in its metadata's `requires` and those it
/// provides. Any other key is ``ServiceLocatorError/notGranted(key:plugin:)``, whether a slot has it
/// or not, and ``slotInfo(forKey:)`` and ``slots`` show none of them: so the host's picture of who
/// depends on whom (the order it starts plugins in, what a reload restarts) is the whole picture.
///
/// It also carries the plugin's own ``log`` and ``settings``, which the host fills for that plugin
/// alone.
///
/// ```swift
/// func registerServices(in registrar: ModuleRegistrar) throws {
///     let services = registrar.services
///     try registrar.addLazyService(key: Keys.greeter) {
///         TimeOfDayGreeter(clock: try services.tryService(key: Keys.clock))
///     }
/// }
/// ```
// @unchecked Sendable: a class that is not final cannot be checked. Invariant: its stored
// properties are `let`s of Sendable types, and its only subclass, ServiceLocator (the class is not
// `open`), keeps all its state in Sendable `let`s (a Lock, a PublishedOnce, a Sendable logger).
// `withReading` downcasts without a check: a resolver without a source is a ServiceLocator.
public class ServiceResolver: @unchecked Sendable {
    /// Where a lent resolver reads; nil for a locator, which reads itself.
    private let source: ServiceSource?
    /// The keys a resolver lent to one plugin may read; nil: every key.
    let grant: GrantedKeys?
    /// The plugin's own log, for a resolver lent to a plugin by a host that keeps its plugins' logs:
    /// each line goes to the host's log with the plugin's name and version (``PluginLog``). Any other
    /// resolver's writes nowhere.
    public let log: PluginLog
    /// The plugin's own settings, for a resolver lent to a plugin by a host that has its operator's
    /// configuration: that plugin's values only (``PluginSettings``). Any other resolver's are unset.
    public let settings: PluginSettings

    /// A resolver that reads whatever `source` serves, every key of it: a host's current services.
    @_spi(HostKit)
    public init(source: ServiceSource) {
        self.source = source
        grant = nil
        log = PluginLog()
        settings = PluginSettings()
    }

    /// A resolver lent to the plugin `plugin` that reads whatever `source` serves under `keys` only
    /// (the keys the plugin declared it requires and those it provides); any other get is
    /// ``ServiceLocatorError/notGranted(key:plugin:)``.
    @_spi(HostKit)
    public init(source: ServiceSource, lentTo plugin: String, granting keys: [String]) {
        self.source = source
        grant = GrantedKeys(plugin: plugin, keys: keys)
        log = PluginLog()
        settings = PluginSettings()
    }

    /// A resolver lent to the plugin `plugin`, as ``init(source:lentTo:granting:)``, whose ``log``
    /// is `log`: the plugin's own, kept by the host.
    @_spi(HostKit)
    public init(source: ServiceSource, lentTo plugin: String, granting keys: [String], log: PluginLog) {
        self.source = source
        grant = GrantedKeys(plugin: plugin, keys: keys)
        self.log = log
        settings = PluginSettings()
    }

    /// A resolver lent to the plugin `plugin`, as ``init(source:lentTo:granting:)``, whose ``log``
    /// and ``settings`` are the plugin's own (a nil log writes nowhere, nil settings are unset).
    @_spi(HostKit)
    public init(source: ServiceSource, lentTo plugin: String, granting keys: [String], log: PluginLog?,
                settings: PluginSettings?) {
        self.source = source
        grant = GrantedKeys(plugin: plugin, keys: keys)
        self.log = log ?? PluginLog()
        self.settings = settings ?? PluginSettings()
    }

    /// A locator's own: it reads itself.
    init() {
        source = nil
        grant = nil
        log = PluginLog()
        settings = PluginSettings()
    }

    /// The locator gets read now: the source's, or, for a locator, itself. Internal, not SPI: nothing
    /// outside PluginAPI, a plugin that imports the SPI included, can turn a resolver into a locator.
    func reading() -> ServiceLocator {
        withReading { $0 }
    }

    /// Runs `body` with the locator gets read now, borrowed: a get on a locator takes no retain of
    /// it (threads getting from one locator would contend on its reference count).
    @inline(__always)
    func withReading<R>(_ body: (ServiceLocator) throws -> R) rethrows -> R {
        guard let source else {
            // Only ServiceLocator's initializer leaves `source` nil, and the class is not `open`:
            // this resolver is a locator.
            return try body(unsafeDowncast(self, to: ServiceLocator.self))
        }
        return try body(source.current)
    }

    /// Runs `body` with the locator gets read now, once `storeKey` is found granted (a refusal is
    /// logged to that locator's logger, as a failed get is).
    @inline(__always)
    func withReading<R>(granted storeKey: @autoclosure () -> String, _ body: (ServiceLocator) throws -> R) throws -> R {
        try withReading { locator in
            if let grant { try locator.check(storeKey(), grantedBy: grant) }
            return try body(locator)
        }
    }

    /// The locator gets read now, once `storeKey` is found granted: for the gets that await, which
    /// cannot borrow it.
    func reading(granted storeKey: String) throws -> ServiceLocator {
        let locator = reading()
        if let grant { try locator.check(storeKey, grantedBy: grant) }
        return locator
    }

    /// Whether this resolver may read `storeKey`.
    func grants(_ storeKey: String) -> Bool {
        grant?.allows(storeKey) ?? true
    }

    /// The service for `key`, or `nil` if there is none or it could not be made.
    // @inlinable: compiled into the caller, which knows `Key`, so the optional result needs no
    // runtime lookup of the key's associated type (57 instructions per get once PluginAPI is
    // built for library evolution). Its body only calls `tryService(key:)` and can never change.
    @inlinable
    public final func getService<Key: ServiceLocatorKey>(key: Key) -> Key.Service? {
        try? tryService(key: key)
    }

    /// The service for `key`, or the reason there is none: a ``ServiceLocatorError`` (missing key, wrong
    /// type or parameters) or a ``ServiceObtainError`` (its factory failed).
    public final func tryService<Key: ServiceLocatorKey>(key: Key) throws -> Key.Service {
        // The grant is checked with the hash the slot lookup computes anyway (GrantedKeys).
        try withReading { try $0.service(key: key, grantedBy: grant) }
    }

    /// The service for `key`; stops the program with the full reason if there is none. For services
    /// a program cannot run without, in place of `try!`, so that the reason is not lost.
    public final func getServiceOrFatal<Key: ServiceLocatorKey>(
        key: Key, file: StaticString = #fileID, line: UInt = #line
    ) -> Key.Service {
        do {
            return try tryService(key: key)
        } catch {
            fatalError(failureMessage(error), file: file, line: line)
        }
    }

    /// A service made for `params`, or the reason there is none.
    public final func tryService<Key: ServiceLocatorParamsKey>(key: Key, params: Key.Params) throws -> Key.Service {
        try withReading(granted: key.storeKey) { try $0.service(key: key, params: params) }
    }

    /// The service for `key`, awaited: the way to get a slot whose factory is `async` (see
    /// ``ServiceAsyncFactory``). Waiting suspends the task, never blocks its thread. Other slots are
    /// gotten as ``tryService(key:)`` gets them.
    public final func tryServiceAsync<Key: ServiceLocatorKey>(key: Key) async throws -> Key.Service {
        try await reading(granted: key.storeKey).asyncService(key: key)
    }

    /// The provider behind `key`, or the reason there is none. Holding a provider skips the key
    /// lookup on later gets; it stays with the slot it came from (get it again to follow a host
    /// that loaded more).
    public final func tryServiceProvider<Key: ServiceLocatorKey>(key: Key) throws -> ServiceProvider<Key.Service> {
        try withReading(granted: key.storeKey) { try $0.provider(key: key) }
    }

    /// The provider with parameters behind `key`, or the reason there is none.
    public final func tryServiceProvider<Key: ServiceLocatorParamsKey>(key: Key) throws
        -> ServiceParamsProvider<Key.Service, Key.Params> {
        try withReading(granted: key.storeKey) { try $0.paramsProvider(key: key) }
    }

    /// The provider of the async slot `key`, or the reason there is none.
    public final func tryServiceAsyncProvider<Key: ServiceLocatorKey>(key: Key) throws
        -> ServiceAsyncProvider<Key.Service> {
        try withReading(granted: key.storeKey) { try $0.asyncProvider(key: key) }
    }

    /// The slot for `key`, if any (and, for a resolver lent to a plugin, if the plugin may read it):
    /// its type, parameters, mode and origin.
    public final func slotInfo(forKey key: String) -> ServiceSlotInfo? {
        guard grants(key) else { return nil }
        return withReading { $0.existingSlot(key)?.info }
    }

    /// Every slot (for a resolver lent to a plugin, those it may read), sorted by key.
    public final var slots: [ServiceSlotInfo] {
        let all = withReading { $0.slotInfos }
        guard grant != nil else { return all }
        return all.filter { grants($0.key) }
    }
}

// Reflection shows nothing of what a resolver reads: `Mirror` reads private stored properties, and a
// plugin that reflected its resolver would reach the source, and through it the locator, it reads.
extension ServiceResolver: CustomReflectable {
    /// An empty mirror.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
