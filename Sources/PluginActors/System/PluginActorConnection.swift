/// One connection of a ``PluginActorSystem`` to another process, for the host that made it.
@_spi(HostKit)
public final class PluginActorConnection: Sendable {
    let connection: PeerConnection

    init(_ connection: PeerConnection) {
        self.connection = connection
    }

    /// The calls made over this connection that wait for an answer.
    public var pendingCalls: Int { connection.pendingCalls }

    /// True once the connection ended (either side closed it, or the other process ended).
    public var isEnded: Bool { connection.isEnded }

    /// Closes the connection: its pending calls fail with `reason`, and the other process sees the end.
    public func close(_ reason: PluginActorError) {
        connection.close(reason)
    }
}
