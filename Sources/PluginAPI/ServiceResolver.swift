/// What a module gets services through: the gets of a ``ServiceLocator``, and nothing that changes one.
///
/// A module's registrar hands it one (``ModuleRegistrar/services``), and so does its start hook
/// (``Module/start(services:)``). It has no add, replace or remove, no `addModule`, no read-only
/// switch and no clone: a plugin can read the services of its host through it and change none of them,
/// because the type offers no way to (as in Swinject, where factories get a `Resolver`).
///
/// It reads the host's **current** services: while a load runs, those registered so far; once the
/// load is published, the host's published ones, also after later loads. So a factory that captures
/// it reaches what the host serves when the factory runs, not what it served when the plugin loaded.
///
/// ```swift
/// func registerServices(in registrar: ModuleRegistrar) throws {
///     let services = registrar.services
///     try registrar.addLazyService(key: Keys.greeter) {
///         TimeOfDayGreeter(clock: try services.tryService(key: Keys.clock))
///     }
/// }
/// ```
public final class ServiceResolver: Sendable {
    private let source: ServiceSource

    /// A resolver that reads `locator`: to hand a module's hooks the services of a locator of your own
    /// (``ServiceLocator/addModule(_:replace:check:)`` makes one for its registrar).
    public convenience init(_ locator: ServiceLocator) {
        self.init(source: ServiceSource(locator))
    }

    /// A resolver that reads whatever `source` serves: a host's current services.
    @_spi(HostKit)
    public init(source: ServiceSource) {
        self.source = source
    }

    /// The locator this resolver reads now. Internal, not SPI: nothing outside PluginAPI, a plugin
    /// that imports the SPI included, can turn a resolver back into a locator it could change.
    private var locator: ServiceLocator { source.current }

    /// The service for `key`, or `nil` if there is none or it could not be made.
    public func getService<Key: ServiceLocatorKey>(key: Key) -> Key.Service? {
        locator.getService(key: key)
    }

    /// The service for `key`, or the reason there is none (see ``ServiceLocator/tryService(key:)``).
    public func tryService<Key: ServiceLocatorKey>(key: Key) throws -> Key.Service {
        try locator.tryService(key: key)
    }

    /// The service for `key`; stops the program with the full reason if there is none.
    public func getServiceOrFatal<Key: ServiceLocatorKey>(key: Key, file: StaticString = #fileID, line: UInt = #line)
        -> Key.Service {
        locator.getServiceOrFatal(key: key, file: file, line: line)
    }

    /// A service made for `params`, or `nil`.
    public func getService<Key: ServiceLocatorParamsKey>(key: Key, params: Key.Params) -> Key.Service? {
        locator.getService(key: key, params: params)
    }

    /// A service made for `params`, or the reason there is none.
    public func tryService<Key: ServiceLocatorParamsKey>(key: Key, params: Key.Params) throws -> Key.Service {
        try locator.tryService(key: key, params: params)
    }

    /// The service for `key`, awaited: the way to get a slot whose factory is `async`.
    public func tryServiceAsync<Key: ServiceLocatorKey>(key: Key) async throws -> Key.Service {
        try await locator.tryServiceAsync(key: key)
    }

    /// The service for `key`, awaited, or `nil` if there is none or it could not be made.
    public func getServiceAsync<Key: ServiceLocatorKey>(key: Key) async -> Key.Service? {
        await locator.getServiceAsync(key: key)
    }

    /// The provider behind `key`, or the reason there is none. A provider stays with the slot it came
    /// from: get it again after the host loaded more to follow the host.
    public func tryServiceProvider<Key: ServiceLocatorKey>(key: Key) throws -> ServiceProvider<Key.Service> {
        try locator.tryServiceProvider(key: key)
    }

    /// The provider with parameters behind `key`, or the reason there is none.
    public func tryServiceProvider<Key: ServiceLocatorParamsKey>(key: Key) throws
        -> ServiceParamsProvider<Key.Service, Key.Params> {
        try locator.tryServiceProvider(key: key)
    }

    /// The provider of the async slot `key`, or the reason there is none.
    public func tryServiceAsyncProvider<Key: ServiceLocatorKey>(key: Key) throws -> ServiceAsyncProvider<Key.Service> {
        try locator.tryServiceAsyncProvider(key: key)
    }

    /// The slot for `key`, if any: its type, parameters, mode and origin.
    public func slotInfo(forKey key: String) -> ServiceSlotInfo? {
        locator.slotInfo(forKey: key)
    }

    /// Every slot, sorted by key.
    public var slots: [ServiceSlotInfo] {
        locator.slots
    }
}

// Reflection shows nothing of what a resolver reads: `Mirror` reads private stored properties, and a
// plugin that reflected its resolver would reach the source, and through it the locator, it reads.
extension ServiceResolver: CustomReflectable {
    /// An empty mirror.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

