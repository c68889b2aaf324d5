/// The mediator does not keep providers alive: a provider goes away with the slots that hold it.
struct WeakObserver<Session: ServiceSession> {
    weak var observer: (any SessionObserver<Session>)?
}
