/// A factory of singletons bound to a session (3.0's `ServiceSessionFactory`): when the current
/// session of its ``ServiceSessionMediator`` changes, the service is made anew for the new session,
/// or deactivated and later activated again when its session comes back.
///
/// `mode` says how the service is kept within one session, as for ``ServiceFactory``: `atOne` is
/// made at once on each change, `lazy` on the first get after it, `weak` while held, `many` on every
/// get (never kept, so never deactivated).
///
/// ```swift
/// struct ProfileFactory: ServiceSessionFactory {
///     let mode: ServiceFactoryMode = .lazy
///     func makeService(session: UserSession) throws -> Profile { try Profile.load(user: session.user) }
///     // Keep the old profile and reuse it when the user signs in again.
///     func deactivateService(_ service: Profile, session: UserSession) -> Bool { service.pause(); return true }
///     func activateService(_ service: Profile, session: UserSession) -> Bool { service.resume(); return true }
/// }
/// ```
public protocol ServiceSessionFactory: Sendable {
    /// The type of service the factory makes; `Sendable`, as every service of a locator.
    associatedtype Service: Sendable
    /// The session the service is bound to.
    associatedtype Session: ServiceSession
    /// How the service is kept within one session.
    var mode: ServiceFactoryMode { get }
    /// Makes the service for `session`. A thrown error reaches the caller wrapped in a ``ServiceObtainError``.
    func makeService(session: Session) throws -> Service
    /// Called when `session` stops being current and `service` was made for it. Return true to keep
    /// the service for when the session comes back, false to let it go. Defaults to false.
    func deactivateService(_ service: Service, session: Session) -> Bool
    /// Called when `session` becomes current again and a service kept for it exists. Return true to
    /// use it again, false to make a new one. Defaults to true.
    func activateService(_ service: Service, session: Session) -> Bool
}

extension ServiceSessionFactory {
    public func deactivateService(_ service: Service, session: Session) -> Bool { false }
    public func activateService(_ service: Service, session: Session) -> Bool { true }

    /// A provider of this factory's service, bound to the sessions of `mediator`.
    public func serviceProvider(mediator: ServiceSessionMediator<Session>) -> ServiceProvider<Service> {
        ServiceProvider(core: SessionCore(factory: self, mediator: mediator, identity: ServiceIdentity(type: Service.self),
                                          logger: nil))
    }
}
