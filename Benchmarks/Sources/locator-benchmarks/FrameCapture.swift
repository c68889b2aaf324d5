import Distributed
import FixtureRemoteContracts
import Glibc
@_spi(HostKit) import PluginActors

/// The bytes one call of ``BenchEcho/echo(_:)`` puts on the socket, both ways: two actor systems of
/// this process, each on a socket pair of its own, with this thread passing the frames from one pair
/// to the other and keeping a copy. What the floor then sends and answers, byte for byte.
struct CapturedFrames: Sendable {
    /// The call frame (header, service name, target, arguments).
    let call: [UInt8]
    /// The reply frame (header, the result's encoding).
    let reply: [UInt8]

    static func capture() -> CapturedFrames {
        let caller = PluginActorSystem(), server = PluginActorSystem()
        let service = BenchEchoService(actorSystem: server)
        let callerPair = socketPair(), serverPair = socketPair()
        defer { (callerPair + serverPair).forEach { close($0) } }
        let callerConnection: PluginActorConnection, serverConnection: PluginActorConnection
        do {
            callerConnection = try caller.connect(peer: "capture", socket: callerPair[0],
                                                  serve: { name in throw PluginActorError.unsupported("no \(name) here") })
            serverConnection = try server.connect(peer: "caller", socket: serverPair[1], serve: { _ in (service, $BenchEcho<PluginActorSystem>.self) })
        } catch {
            fail("frame capture: \(error)")
        }
        defer {
            callerConnection.close(.unavailable(peer: "capture", reason: "captured"))
            serverConnection.close(.unavailable(peer: "caller", reason: "captured"))
        }
        let proxy: any BenchEcho
        do {
            proxy = try $BenchEcho<PluginActorSystem>.resolve(id: PluginActorID(peer: "capture", name: benchEchoName), using: caller)
        } catch {
            fail("frame capture: \(error)")
        }
        // The call is made in a task; this thread relays its frames, so it must not wait for the task first.
        let answer = Task { try await proxy.echo(.bench) }
        guard let call = RawSocket.readFrame(callerPair[1]), RawSocket.write(serverPair[0], call),
              let reply = RawSocket.readFrame(serverPair[0]), RawSocket.write(callerPair[1], reply) else {
            fail("frame capture: a frame was cut short")
        }
        let echoed = mustAwait("frame capture") { try await answer.value }
        guard echoed == .bench else { fail("frame capture: the echo returned \(echoed)") }
        return CapturedFrames(call: call, reply: reply)
    }

    private static func socketPair() -> [Int32] {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            fail("socketpair: \(String(cString: strerror(errno)))")
        }
        return pair
    }
}
