/// The logger a counting locator gives each slot's factories: it tells the slot's counters how long
/// each service took to make, and passes every event on to the locator's own logger, if any.
final class CountingLogger: ServiceLogger {
    private let base: (any ServiceLogger)?
    private let counters: any ServiceSlotCounters

    init(base: (any ServiceLogger)?, counters: any ServiceSlotCounters) {
        self.base = base
        self.counters = counters
    }

    func log(_ event: ServiceLogEvent) {
        base?.log(event)
    }

    /// A factory made `service` in `duration`.
    func made(_ service: ServiceIdentity, mode: ServiceFactoryMode, in duration: Duration) {
        counters.made(in: duration)
        base?.log(.made(service, mode: mode))
    }
}
