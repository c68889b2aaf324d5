/// Receives what a ``ServiceLocator`` does: registrations, creations and failures.
/// A locator without a logger is silent.
public protocol ServiceLogger: Sendable {
    /// Called synchronously, on the thread that caused the event; keep it quick.
    func log(_ event: ServiceLogEvent)
}
