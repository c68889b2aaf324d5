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
