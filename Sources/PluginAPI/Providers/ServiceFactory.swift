/// How a provider keeps the service its factory makes.
public enum ServiceFactoryMode: String, Sendable, CaseIterable {
    /// Made once, when the provider is created; a failure is remembered and returned on every get.
    case atOne
    /// Made once, on the first get; a failure is returned and the next get tries again.
    case lazy
    /// Made on a get when no instance is alive, and kept only while someone else holds it.
    /// Only class instances can be held weakly: for a value, every get makes a new one.
    case weak
    /// Made anew on every get.
    case many
}

/// A factory that makes a service without parameters.
///
/// Factories are `Sendable`: a provider may call one from whichever thread first needs the service.
public protocol ServiceFactory: Sendable {
    /// The type of service the factory makes; `Sendable`, as every service of a locator.
    associatedtype Service: Sendable
    /// How the provider keeps what ``makeService()`` returns.
    var mode: ServiceFactoryMode { get }
    /// Makes the service. A thrown error reaches the caller wrapped in a ``ServiceObtainError``.
    func makeService() throws -> Service
}

/// A factory that makes a service from parameters; such a service is always made anew (`many`).
public protocol ServiceParamsFactory: Sendable {
    /// The type of service the factory makes; `Sendable`, as every service of a locator.
    associatedtype Service: Sendable
    /// The parameters each get passes in.
    associatedtype Params
    /// Makes the service for `params`.
    func makeService(params: Params) throws -> Service
}

extension ServiceFactory {
    /// A provider that keeps this factory's services as ``mode`` says.
    public func serviceProvider() -> ServiceProvider<Service> {
        ServiceProvider(factory: self)
    }
}

extension ServiceParamsFactory {
    /// A provider that passes parameters to this factory.
    public func serviceProvider() -> ServiceParamsProvider<Service, Params> {
        ServiceParamsProvider(factory: self)
    }

    /// A provider without parameters that always passes `params` to this factory.
    public func serviceProvider(params: Params) -> ServiceProvider<Service> where Params: Sendable {
        ServiceParamsProvider(factory: self).convert(params: params)
    }
}
