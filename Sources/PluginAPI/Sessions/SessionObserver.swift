/// A provider bound to a session.
protocol SessionObserver<Session>: AnyObject, Sendable {
    associatedtype Session: ServiceSession
    /// Called, one change at a time, for each update of the session, once per step.
    func sessionChanged(from old: Session, to new: Session, policy: ServiceSessionRemakePolicy, step: ServiceSessionChangeStep)
}
