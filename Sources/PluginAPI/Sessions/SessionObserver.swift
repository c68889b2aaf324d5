/// A provider bound to a session.
protocol SessionObserver<Session>: AnyObject, Sendable {
    associatedtype Session: ServiceSession
    /// Called, one change at a time, for each update of the session, once per step.
    func sessionChanged(from old: Session, to new: Session, policy: ServiceSessionRemakePolicy, step: ServiceSessionChangeStep)
}

/// An observer from outside PluginAPI: a closure, kept alive by its ``ServiceSessionObservation``.
final class ClosureObserver<Session: ServiceSession>: SessionObserver {
    private let body: @Sendable (Session, ServiceSessionRemakePolicy, ServiceSessionChangeStep) -> Void

    init(_ body: @escaping @Sendable (Session, ServiceSessionRemakePolicy, ServiceSessionChangeStep) -> Void) {
        self.body = body
    }

    func sessionChanged(from old: Session, to new: Session, policy: ServiceSessionRemakePolicy, step: ServiceSessionChangeStep) {
        body(new, policy, step)
    }
}

/// The mediator does not keep providers alive: a provider goes away with the slots that hold it.
struct WeakObserver<Session: ServiceSession> {
    weak var observer: (any SessionObserver<Session>)?
}
