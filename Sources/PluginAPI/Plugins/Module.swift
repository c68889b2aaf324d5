/// A group of slots added together, all or nothing: what a plugin contributes to a host.
///
/// ```swift
/// struct GreetingModule: Module {
///     func registerServices(in registrar: ModuleRegistrar) throws {
///         let services = registrar.services
///         try registrar.addLazyService(key: Keys.greeter) {
///             EnglishGreeter(clock: try services.tryService(key: Keys.clock))
///         }
///     }
/// }
/// try locator.addModule(GreetingModule())
/// ```
public protocol Module {
    /// Shown as the origin of the module's slots and in errors. Defaults to the type's name.
    var name: String { get }
    /// Adds the module's slots through `registrar`. If this throws, none of them is kept, and none of
    /// its `atOne` factories has run (they run once the whole module is accepted).
    func registerServices(in registrar: ModuleRegistrar) throws
    /// Called by a host once every module of a load is registered and its locator is read-only, in
    /// dependency order: the modules a module requires have started before it. The module may get
    /// services now (open files, connect) through `services`, which reads the host's current services
    /// and changes none. If this throws, the host reports it for this module and drops its slots.
    /// Defaults to doing nothing.
    func start(services: ServiceResolver) async throws
    /// Called by a host when it shuts down, in reverse start order, for every module whose
    /// ``start(services:)`` succeeded: close what `start` opened. The host bounds it with a timeout
    /// and cancels it when that runs out. Defaults to doing nothing.
    func shutdown() async throws
}

extension Module {
    /// Does nothing.
    public func start(services: ServiceResolver) async throws {}
    /// Does nothing.
    public func shutdown() async throws {}

    /// A ``Plugin``'s metadata name; for another module, the type's full name, or for a type without
    /// a stable full name (a `private` one, whose name holds an address), its plain name.
    public var name: String {
        if let plugin = Self.self as? any Plugin.Type { return plugin.metadata.name }
        let full = String(reflecting: Self.self)
        return full.contains("(unknown context") ? String(describing: Self.self) : full
    }
}
