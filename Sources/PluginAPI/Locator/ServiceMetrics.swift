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
