/// The calls to a peer whose process ended while its successor is on its way: they wait for it
/// instead of failing (``PluginActorSystem/connect(peer:socket:callTimeout:serve:endReason:callEnded:callsWaitForSuccessor:)``).
///
/// Invariants: a hold lives in its system's `peers`, changed only under that lock; each waiter is
/// resumed once, by whoever removes it from `waiters` under the lock; a waiter that is resumed looks
/// at the peer again (it may have to wait again, go on, or fail).
struct PeerHold: Sendable {
    /// The successor's connection, once it connected: only calls to `passing` go over it until the
    /// hold is lifted (the host's own steps that start the successor's plugin). Those calls never
    /// wait: before a successor connected, they fail as the process did.
    var successor: PeerConnection?
    let passing: Set<String>
    /// How the process ended: what a call that waited past its timeout fails with.
    let ended: PluginActorError
    /// The ended connection's timeout, for calls made without one of their own.
    let callTimeout: Duration
    /// Each resumed with `true`: look at the peer again (`false` is for a call refused at the cap, never kept here).
    var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]

    /// How many calls may wait for one peer's successor: past it a call fails at once, so that a
    /// child that never starts cannot gather a continuation and a timer per request (each waits at
    /// most its call timeout). Far more than a server has requests in flight.
    static let mostWaiters = 8_192
}
