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

extension ServiceFactory {
    /// A provider that keeps this factory's services as ``mode`` says.
    public func serviceProvider() -> ServiceProvider<Service> {
        ServiceProvider(factory: self)
    }
}
