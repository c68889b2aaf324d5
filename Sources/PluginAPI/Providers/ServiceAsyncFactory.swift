/// A factory whose service must do asynchronous work before it is usable, such as connecting.
///
/// Get its services with `await` (``ServiceAsyncProvider/getService()``,
/// ``ServiceResolver/tryServiceAsync(key:)``): waiting for one suspends the task instead of blocking
/// a thread. `mode` works as for ``ServiceFactory``: `atOne` starts making the service at once, in
/// the background, and remembers a failure; `lazy` makes it on the first get and retries after a
/// failure; `weak` keeps it while held; `many` makes one per get. A singleton is made exactly once,
/// however many tasks ask for it at the same time.
///
/// ```swift
/// struct DatabaseFactory: ServiceAsyncFactory {
///     let mode: ServiceFactoryMode = .lazy
///     func makeService() async throws -> Database { try await Database.connect(to: url) }
/// }
/// ```
public protocol ServiceAsyncFactory: Sendable {
    /// The type of service the factory makes; it crosses tasks, so it is `Sendable`.
    associatedtype Service: Sendable
    /// How the provider keeps what ``makeService()`` returns.
    var mode: ServiceFactoryMode { get }
    /// Makes the service. A thrown error reaches the caller wrapped in a ``ServiceObtainError``.
    func makeService() async throws -> Service
}

extension ServiceAsyncFactory {
    /// A provider that keeps this factory's services as ``mode`` says.
    public func serviceProvider() -> ServiceAsyncProvider<Service> {
        ServiceAsyncProvider(mode: mode, makeService)
    }
}
