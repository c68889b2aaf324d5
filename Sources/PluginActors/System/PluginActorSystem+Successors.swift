/// Calls that wait for a peer's next process while it is restarted, instead of failing (``PeerHold``).
extension PluginActorSystem {
    /// Where a call to `id` goes now.
    enum Route {
        case ready(PeerConnection)
        /// It waits for the peer's successor: at most this long, unless the call has a timeout of its own.
        case held(Duration)
    }

    /// Where a call to `id` goes now, or why it cannot go anywhere.
    @inline(__always)
    func route(_ id: PluginActorID) throws(PluginActorError) -> Route {
        try peers.withLock { peers throws(PluginActorError) -> Route in
            switch peers[id.peer] {
            case let .connected(connection): return .ready(connection)
            case let .held(hold):
                // The host's own steps never wait: they go to the successor, or fail as the process did.
                guard hold.passing.contains(id.name) else { return .held(hold.callTimeout) }
                guard let successor = hold.successor else { throw hold.ended }
                return .ready(successor)
            case let .down(error): throw error
            case nil: throw .unavailable(peer: id.peer, reason: "no process of that name is connected")
            }
        }
    }

    /// The connection a call to `id` goes over once the peer's successor serves it; fails with how
    /// the process ended if none does before `deadline`, or with why the peer went down meanwhile.
    func successor(for id: PluginActorID, before deadline: ContinuousClock.Instant) async throws -> PeerConnection {
        while true {
            switch try route(id) {
            case let .ready(connection): return connection
            case .held:
                try Task.checkCancellation()
                if ContinuousClock.now >= deadline, case let .held(hold)? = peers.withLock({ $0[id.peer] }) {
                    throw Self.waitedTooLong(hold.ended)
                }
                try await waitForChange(of: id, before: deadline)
            }
        }
    }

    /// Returns once the peer of `id` changed (its successor connected or serves, or it went down),
    /// at `deadline`, or once the task is cancelled, whichever comes first. Throws if
    /// ``PeerHold/mostWaiters`` calls wait already.
    private func waitForChange(of id: PluginActorID, before deadline: ContinuousClock.Instant) async throws(PluginActorError) {
        let waiter = waiterCount.add(1, ordering: .relaxed).newValue
        let timer = Task { [weak self] in
            // At most a year at a time: the clock traps on an instant past what its seconds hold (a
            // timeout of `.seconds(Int64.max)`, "forever"); a waiter woken early looks and waits again.
            try? await Task.sleep(until: min(deadline, .now + Self.longestSleep))
            self?.wake(waiter, of: id.peer)
        }
        defer { timer.cancel() }
        let waited = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // A cancellation or the timer that came first finds no waiter to wake: look at both here.
                let waiting = peers.withLock { peers -> Bool? in
                    Self.changeHold(of: id.peer, in: &peers) { hold -> Bool? in
                        guard !hold.passing.contains(id.name), !Task.isCancelled, ContinuousClock.now < deadline else { return false }
                        guard hold.waiters.count < PeerHold.mostWaiters else { return nil }
                        hold.waiters[waiter] = continuation
                        return true
                    } ?? false
                }
                switch waiting {
                case true?: break
                case false?: continuation.resume(returning: true)
                case nil: continuation.resume(returning: false)
                }
            }
        } onCancel: {
            wake(waiter, of: id.peer)
        }
        guard waited else {
            throw .unavailable(peer: id.peer, reason: "its process is restarting, and \(PeerHold.mostWaiters) calls wait for it already")
        }
    }

    private static let longestSleep: Duration = .seconds(365 * 86_400)

    /// Resumes the one waiter `waiter`, if it still waits.
    private func wake(_ waiter: UInt64, of peer: String) {
        let continuation = peers.withLock { peers in
            Self.changeHold(of: peer, in: &peers) { hold in hold.waiters.removeValue(forKey: waiter) } ?? nil
        }
        continuation?.resume(returning: true)
    }

    /// `body` applied to the hold of `peer` in `peers`, if it is held. The hold is taken out of the
    /// dictionary while `body` changes it, so that a change to its waiters copies no table.
    private static func changeHold<Result>(of peer: String, in peers: inout [String: Peer],
                                           _ body: (inout PeerHold) -> Result) -> Result? {
        guard case var .held(hold)? = peers[peer] else { return nil }
        peers[peer] = nil
        defer { peers[peer] = .held(hold) }
        return body(&hold)
    }

    /// Changes the state of `peer`, and resumes every call that waited for its successor: each looks
    /// at the new state (and waits again if it must).
    func changePeer(_ peer: String, _ change: (Peer?) -> Peer?) {
        let waiters = peers.withLock { peers in Self.change(peer, in: &peers, change) }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Changes the state of `peer` in `peers` (their lock held); returns the calls that waited for its
    /// successor, for the caller to resume once the lock is released.
    static func change(_ peer: String, in peers: inout [String: Peer], _ change: (Peer?) -> Peer?) -> [CheckedContinuation<Bool, Never>] {
        let old = peers.removeValue(forKey: peer)
        var new = change(old)
        if case var .held(hold)? = new {
            hold.waiters = [:]
            new = .held(hold)
        }
        peers[peer] = new
        guard case let .held(hold)? = old else { return [] }
        return Array(hold.waiters.values)
    }

    /// What a call that waited for a successor past its timeout fails with: how the process ended, and that.
    private static func waitedTooLong(_ ended: PluginActorError) -> PluginActorError {
        let waited = "; no process served it again within the call's timeout"
        return switch ended {
        case let .processEnded(peer, reason): .processEnded(peer: peer, reason: reason + waited)
        case let .unavailable(peer, reason): .unavailable(peer: peer, reason: reason + waited)
        default: ended
        }
    }
}
