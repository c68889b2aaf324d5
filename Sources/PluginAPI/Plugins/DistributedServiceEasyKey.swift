import Distributed

/// A ready-made ``DistributedServiceKey``: the store key is the service's full type name unless you
/// give another name, as for ``ServiceLocatorEasyKey``.
///
/// A contract library declares the contract as a `@Resolvable` distributed-actor protocol that names
/// no actor system (its arguments and results `Codable`), and its key with the stub on the actor
/// system of PluginActors:
///
/// ```swift
/// import Distributed
/// import PluginActors
/// import PluginAPI
///
/// @Resolvable
/// public protocol Greeter: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
///     distributed func greet(name: String) -> String
/// }
///
/// public enum GreeterKeys {
///     public static let greeter = DistributedServiceEasyKey<any Greeter, $Greeter<PluginActorSystem>>(name: "greeter")
/// }
/// ```
///
/// A plugin provides it with a distributed actor of that system,
/// `distributed actor EnglishGreeter: Greeter { typealias ActorSystem = PluginActorSystem; init() { actorSystem = .shared } }`,
/// registered as any service (`try registrar.addLazyService(key: GreeterKeys.greeter) { EnglishGreeter() }`),
/// and declares it in its metadata as any key. Every call of the service is `try await`.
///
/// Keep keys in constants (`static let`): the default store key is computed once, at init.
public struct DistributedServiceEasyKey<Service: Sendable, Stub: DistributedActor>: DistributedServiceKey {
    /// The service's full type name, such as `any GreeterContracts.Greeter`, or the name given.
    public let storeKey: String

    /// Lends the stored key to `body`, without copying it.
    public func withStoreKey<R>(_ body: (borrowing String) throws -> R) rethrows -> R {
        try body(storeKey)
    }

    /// A key named `name`, by default after the service type; give a name for a second slot of the
    /// same type.
    public init(name: String = String(reflecting: Service.self)) {
        storeKey = name
    }
}
