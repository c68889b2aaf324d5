/// A factory that makes a service from parameters; such a service is always made anew (`many`).
public protocol ServiceParamsFactory: Sendable {
    /// The type of service the factory makes; `Sendable`, as every service of a locator.
    associatedtype Service: Sendable
    /// The parameters each get passes in.
    associatedtype Params
    /// Makes the service for `params`.
    func makeService(params: Params) throws -> Service
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
