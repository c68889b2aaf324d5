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
    /// plugins' calls with it.
    @_spi(HostKit)
    public func connect(peer: String, socket: Int32, callTimeout: Duration = .seconds(30),
                        serve: @escaping @Sendable (String) async throws -> PluginActorSystem.Served,
                        endReason: @escaping @Sendable () -> String = { "it closed the connection" },
                        callEnded: (@Sendable (_ service: String, _ method: String, _ outcome: String, _ duration: Duration) -> Void)?)
        throws -> PluginActorConnection {
        guard let owned = SocketIO.duplicate(socket) else {
            throw PluginActorError.unavailable(peer: peer, reason: "its socket could not be duplicated")
        }
        let connection = PeerConnection(peer: peer, socket: owned, callTimeout: callTimeout, system: self, serve: serve,
                                        endReason: endReason, callEnded: callEnded) { [weak self] connection, error in
            self?.connectionEnded(connection, error)
        }
        setPeer(peer, .connected(connection))
        guard connection.start() else { throw PluginActorError.unavailable(peer: peer, reason: "no reader thread") }
        return PluginActorConnection(connection)
    }

    /// From now on, calls to `peer` fail at once with ``PluginActorError/unavailable(peer:reason:)``
    /// saying `reason` (a process restarting, withdrawn); its connection, if any, stays open for the
    /// calls it carries.
    @_spi(HostKit)
    public func markUnavailable(peer: String, reason: String) {
        setPeer(peer, .down(.unavailable(peer: peer, reason: reason)))
    }

    private func setPeer(_ peer: String, _ state: Peer) {
        peers.withLock { $0[peer] = state }
    }

    /// A connection that ended leaves its peer down with the reason, unless another took its place.
    private func connectionEnded(_ connection: PeerConnection, _ error: PluginActorError) {
        peers.withLock { peers in
            if case let .connected(current)? = peers[connection.peer], current === connection {
                peers[connection.peer] = .down(error)
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
