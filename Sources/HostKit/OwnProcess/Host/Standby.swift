internal import DynamicLoading
@_spi(HostKit) import PluginActors

/// A standby (``PluginProcesses/standby``) as its plugin's process keeps it until a restart takes it:
/// its child, connected ahead under a name of its own (``PluginProcess/standbyPeer``), and what its
/// load done ahead holds, its confinement checked against it (nil: the takeover asks for the load,
/// as it does of a process started then). What a takeover would otherwise wait for is done.
///
/// Invariants: while kept, `connection` reaches the child under the standby's name only; a takeover
/// moves it to the plugin's peer (``PluginActorSystem/transfer(_:to:)``) before any call of it. The
/// host serves the child nothing (its plugin's requirements, settings, log) until `served` is set:
/// once its confinement was checked against its load done ahead, or, when it loaded nothing ahead,
/// at the takeover, as for a process started then.
struct Standby: Sendable {
    let spawned: SpawnedChild
    let connection: PluginActorConnection
    let loaded: ChildPluginDescription?
    let served: Lock<Bool>

    /// Ends it: its connection closed, its child killed (its end only clears the standby).
    func end(_ reason: String, peer: String) {
        connection.close(.unavailable(peer: peer, reason: reason))
        spawned.child.kill()
    }
}
