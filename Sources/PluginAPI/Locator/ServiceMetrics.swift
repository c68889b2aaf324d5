/// Counts what a ``ServiceLocator`` serves, slot by slot: each get that returned the slot's service,
/// each get of it that failed, each service its factory made and how long that took. A host's
/// metrics backend is one (HostKit's `PluginMetrics`; swift-metrics through `Integrations/`).
/// A locator without one counts nothing, and its gets cost what they did.
///
/// Counted are the gets through a locator or a resolver (plain, with parameters, awaited, by store
/// key); a provider taken from a slot makes and hands out services on its own, and its services
/// made are counted, its gets are not.
public protocol ServiceMetrics: Sendable {
    /// The counters of the slot `key`, added by `origin` (the plugin that provides it; `nil` for a
    /// service the host added itself): asked once, as the slot is added.
    func counters(forKey key: String, origin: String?) -> any ServiceSlotCounters
}

/// The counters of one slot (``ServiceMetrics``). Each is called on the thread that got or made the
/// service, on every get: keep them as quick as an atomic add.
public protocol ServiceSlotCounters: Sendable {
    /// A get returned the slot's service.
    func got()
    /// A get of the slot failed: its factory threw, or the type or parameters asked for are not the
    /// slot's.
    func failed()
    /// The slot's factory made a service, in `duration`.
    func made(in duration: Duration)
}

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
