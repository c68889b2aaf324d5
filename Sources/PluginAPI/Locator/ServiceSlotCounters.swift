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
