import Glibc
@testable import HostKit
@_spi(HostKit) import PluginActors
import Testing

/// Two actor systems joined by a socket pair that stand for a host and one plugin's process: the
/// host serves one service of its own (`name`) to the child, whose calls are whatever a hostile
/// child chooses to send.
final class HostAndChildSystems: Sendable {
    let host = PluginActorSystem()
    let child = PluginActorSystem()
    let sockets: (host: Int32, child: Int32)
    let connections: (host: PluginActorConnection, child: PluginActorConnection)

    /// The host serves `served` under `name`; the child's calls give up after `callTimeout`.
    init(serving name: String, callTimeout: Duration = .seconds(300),
         _ served: (PluginActorSystem) -> PluginActorSystem.Served) throws {
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        sockets = (pair[0], pair[1])
        let service = served(host)
        connections = try (host.connect(peer: "child", socket: pair[0], serve: { asked in
            guard asked == name else { throw ChildRefusal(description: "no \(asked)") }
            return service
        }), child.connect(peer: "host", socket: pair[1], callTimeout: callTimeout, serve: { asked in
            throw ChildRefusal(description: "no \(asked)")
        }))
    }

    deinit {
        connections.host.close(.unavailable(peer: "child", reason: "test over"))
        connections.child.close(.unavailable(peer: "host", reason: "test over"))
        close(sockets.host)
        close(sockets.child)
    }
}
