public import Distributed

/// A key whose service is a distributed actor's contract: the service can be served in process
/// (handed out as itself, every call a local one) or from a process of its own (handed out as a
/// proxy, `Stub`, whose calls cross the process).
///
/// To every API of the locator it is a plain key: registering, getting and declaring it in
/// ``PluginMetadata`` work as for any ``ServiceLocatorKey``. What it adds is `Stub`, the type a host
/// makes proxies of: for a `@Resolvable` protocol `Greeter`, the `$Greeter` the macro made, on the
/// actor system of the project's `PluginActors`. ``DistributedServiceEasyKey`` is the ready-made one.
public protocol DistributedServiceKey<Service>: ServiceLocatorKey {
    /// The type of the proxies that stand for the service when it is served from another process.
    associatedtype Stub: DistributedActor

    /// The key whose store key is `name`: a host remakes the key of a plugin in another process from
    /// the key's type and its name, the two things that cross.
    init(name: String)
}
