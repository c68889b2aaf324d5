/// Keeps an observer of a ``ServiceSessionMediator`` registered: releasing it (or calling
/// ``cancel()``) stops the calls.
public final class ServiceSessionObservation: Sendable {
    private let observer: Lock<(any AnyObject & Sendable)?>

    init(_ observer: any AnyObject & Sendable) {
        self.observer = Lock(observer)
    }

    /// Stops the calls now.
    public func cancel() {
        observer.withLock { $0 = nil }
    }
}
