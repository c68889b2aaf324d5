import Distributed

/// What a host (or a plugin's process) does with the system's connections: the processes it talks
/// to, each by name.
extension PluginActorSystem {
    /// Connects this system to the process `peer` over `socket` (a connected Unix stream socket;
    /// the connection takes a close-on-exec duplicate of it, so the caller keeps and closes its own).
    /// Calls to actors of `peer` go over it from now on; a connection `peer` had before stays open
    /// for the calls it carries (close it when they are done: an upgrade does). The other process's
    /// calls are served by `serve`, which returns the actor for a service name (a store key) and the
    /// `$Contract` stub of the contract it is served by: only that contract's methods run on it.
    ///
    /// When the other process closes the connection or ends, `endReason` says why (the process's
    /// status, say): every call pending then, and every later call to `peer`, fails with
    /// ``PluginActorError/processEnded(peer:reason:)`` saying so, until `peer` connects again.
    @_spi(HostKit)
    public func connect(peer: String, socket: Int32, callTimeout: Duration = .seconds(30),
                        serve: @escaping @Sendable (String) async throws -> PluginActorSystem.Served,
                        endReason: @escaping @Sendable () -> String = { "it closed the connection" })
        throws -> PluginActorConnection {
        try connect(peer: peer, socket: socket, callTimeout: callTimeout, serve: serve, endReason: endReason, callEnded: nil)
    }

    /// ``connect(peer:socket:callTimeout:serve:endReason:)``, and `callEnded` hears of each call this
    /// process makes to `peer` when it ends: the service called (its name in `peer`), the method's name (as
    /// `echo`), how it ended (`answered`, `threw`: the method threw, or `failed`: no answer came,
    /// the process ended, the call timed out or was refused) and how long it took. A host counts its
    /// plugins' calls with it. It also hears of the calls to `peer` that fail before any connection
    /// carries them (in a restart's pause, once withdrawn, or waiting for a restart past their timeout),
    /// until another `callEnded` is given for `peer`.
    ///
    /// With `callsWaitForSuccessor`, the end of the other process does not fail the calls made
    /// after it: they wait, within their timeout, for the process that takes its place (a restart).
    /// The next connection to `peer` carries only the calls to the services named in
    /// `callsWaitForSuccessor` (the host's steps that start its plugin) until ``liftHold(peer:to:)``
    /// says it serves; ``markUnavailable(peer:reason:)`` fails them instead. So does a connection to
    /// a `peer` that went down (marked unavailable, or its connection broke): calls wait for its
    /// start. Calls pending at the end fail as before (they may have run).
    @_spi(HostKit)
    public func connect(peer: String, socket: Int32, callTimeout: Duration = .seconds(30),
                        serve: @escaping @Sendable (String) async throws -> PluginActorSystem.Served,
                        endReason: @escaping @Sendable () -> String = { "it closed the connection" },
                        callEnded: (@Sendable (_ service: String, _ method: String, _ outcome: String, _ duration: Duration) -> Void)?,
                        callsWaitForSuccessor: Set<String>? = nil)
        throws -> PluginActorConnection {
        guard let owned = SocketIO.duplicate(socket) else {
            throw PluginActorError.unavailable(peer: peer, reason: "its socket could not be duplicated")
        }
        if let callEnded { callHooks.withLock { $0[peer] = callEnded } }
        let connection = PeerConnection(peer: peer, socket: owned, callTimeout: callTimeout, system: self, serve: serve,
                                        endReason: endReason, callEnded: callEnded,
                                        callsWaitForSuccessor: callsWaitForSuccessor) { [weak self] connection, error, processGone in
            self?.connectionEnded(connection, error, processGone: processGone)
        }
        changePeer(peer) { Self.place(connection, in: $0) }
        guard connection.start() else { throw PluginActorError.unavailable(peer: peer, reason: "no reader thread") }
        return PluginActorConnection(connection)
    }

    /// Makes `connection`, made under another name, the connection of `peer`, as if it had been
    /// made so with ``connect(peer:socket:callTimeout:serve:endReason:callEnded:callsWaitForSuccessor:)``
    /// (with the same `callsWaitForSuccessor`): a process connected ahead under a name of its own (a
    /// standby, prepared while the process it may succeed serves) takes `peer`'s place. Its old name
    /// reaches nothing from then on. False, and nothing changed, if the connection is not its old
    /// name's any more (its end was handled, or another took that name).
    @_spi(HostKit)
    public func transfer(_ connection: PluginActorConnection, to peer: String) -> Bool {
        let connection = connection.connection
        let (moved, waiters) = peers.withLock { peers -> (Bool, [CheckedContinuation<Bool, Never>]) in
            let old = connection.peer
            let current = switch peers[old] {
            case let .connected(current)?: current === connection
            case let .held(hold)?: hold.successor === connection
            default: false
            }
            guard current else { return (false, []) }
            guard old != peer else { return (true, []) }
            let left = Self.change(old, in: &peers) { _ in nil }
            connection.rename(to: peer)
            return (true, left + Self.change(peer, in: &peers) { Self.place(connection, in: $0) })
        }
        for waiter in waiters { waiter.resume(returning: true) }
        return moved
    }

    /// What `peer`'s state becomes once `connection` is its process's: its successor if calls wait
    /// for one, else its connection.
    private static func place(_ connection: PeerConnection, in state: Peer?) -> Peer {
        switch state {
        case var .held(hold)?:
            // The successor of a process whose calls wait: it carries the host's steps until the hold is lifted.
            hold.successor = connection
            return .held(hold)
        case let .down(error)?:
            // A restart after the peer went down (a crash loop's pause, a broken connection): later
            // calls wait for its start too, rather than reach a plugin not started yet.
            guard let passing = connection.callsWaitForSuccessor else { return .connected(connection) }
            return .held(PeerHold(successor: connection, passing: passing, ended: error, callTimeout: connection.callTimeout))
        case .connected?, nil:
            return .connected(connection)
        }
    }

    /// The process that took the place of `peer`'s ended one serves, over `connection`: the calls
    /// that waited for it, and every later call, go to it. Nothing happens unless `connection` is the
    /// successor that connected (not one that ended since, and was followed by another).
    @_spi(HostKit)
    public func liftHold(peer: String, to connection: PluginActorConnection) {
        changePeer(peer) { state in
            guard case let .held(hold)? = state, let successor = hold.successor, successor === connection.connection else { return state }
            return .connected(successor)
        }
    }

    /// From now on, calls to `peer` wait for its successor, as they do once its connection saw its
    /// process end (which `reason` says): for a host that learns of the end first. Nothing happens
    /// unless `peer` is connected, with `callsWaitForSuccessor`.
    @_spi(HostKit)
    public func holdCalls(peer: String, processEnded reason: String) {
        changePeer(peer) { state in
            guard case let .connected(connection)? = state, let passing = connection.callsWaitForSuccessor else { return state }
            return .held(PeerHold(successor: nil, passing: passing, ended: .processEnded(peer: peer, reason: reason),
                                  callTimeout: connection.callTimeout))
        }
    }

    /// From now on, calls to `peer` fail at once with ``PluginActorError/unavailable(peer:reason:)``
    /// saying `reason` (a process restarting, withdrawn), the calls that waited for its successor
    /// too; its connection, if any, stays open for the calls it carries.
    @_spi(HostKit)
    public func markUnavailable(peer: String, reason: String) {
        changePeer(peer) { _ in .down(.unavailable(peer: peer, reason: reason)) }
    }

    /// A connection that ended leaves its peer down with the reason (or waiting for its successor, if
    /// its process ended and its calls wait for one), unless another took its place.
    private func connectionEnded(_ connection: PeerConnection, _ error: PluginActorError, processGone: Bool) {
        peers.withLock { peers in
            switch peers[connection.peer] {
            case let .connected(current)? where current === connection:
                guard processGone, let passing = connection.callsWaitForSuccessor else {
                    peers[connection.peer] = .down(error)
                    return
                }
                peers[connection.peer] = .held(PeerHold(successor: nil, passing: passing, ended: error,
                                                        callTimeout: connection.callTimeout))
            case var .held(hold)? where hold.successor === connection:
                // The successor ended before it served: the calls wait on for the next, or for the host's word.
                hold.successor = nil
                peers[connection.peer] = .held(hold)
            default:
                break
            }
        }
    }
}

extension PluginActorSystem {
    /// An actor served to another process, and the `$Contract` stub type of the contract it is
    /// served by: a call of any other method is refused, never run on it.
    @_spi(HostKit)
    public typealias Served = (actor: any DistributedActor, contract: any DistributedActor.Type)
}
