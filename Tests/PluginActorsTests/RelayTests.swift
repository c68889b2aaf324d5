import Distributed
import Glibc
@_spi(HostKit) @testable import PluginActors
import Testing

/// A host that lends one process's service to another (a plugin of a process of its own that requires
/// a plugin of another): the host serves its proxy of the first process's actor, and each call the
/// second makes on it is passed on to the first and its reply back. Three systems stand for the
/// three processes: TwoSystems' child serves the calculator, its host lends it to `user`.
@Suite struct RelayTests {
    /// TwoSystems, and a third system connected to its host that reaches the child's calculator
    /// through the host under the name "calc".
    final class ThreeSystems: Sendable {
        let two: TwoSystems
        let user = PluginActorSystem()
        let sockets: (host: Int32, user: Int32)
        let connections: (host: PluginActorConnection, user: PluginActorConnection)

        /// Calls wait as long as TwoSystems' do: in the whole suite, the tasks that answer them (three
        /// systems, one process) may wait long for a thread of Swift concurrency that other tests hold.
        init(callTimeout: Duration = .seconds(300)) throws {
            let two = try TwoSystems(callTimeout: callTimeout)
            self.two = two
            var pair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                throw PluginActorError.unsupported("socketpair failed")
            }
            sockets = (pair[0], pair[1])
            let lent = try two.host.proxy(of: $Calculator<PluginActorSystem>.self, id: PluginActorID(peer: "child", name: "calc"))
            connections = (
                try two.host.connect(peer: "user", socket: pair[0], callTimeout: callTimeout, serve: { name in
                    guard name == "calc" else { throw PluginActorError.unsupported("no \(name)") }
                    return (lent, $Calculator<PluginActorSystem>.self)
                }),
                try user.connect(peer: "host", socket: pair[1], callTimeout: callTimeout, serve: { name in
                    throw PluginActorError.unsupported("the user serves nothing (\(name))")
                })
            )
        }

        /// The user's proxy of the calculator the host lends it.
        func proxy() throws -> any Calculator {
            try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "host", name: "calc"), using: user)
        }

        deinit {
            connections.host.close(.unavailable(peer: "user", reason: "test over"))
            connections.user.close(.unavailable(peer: "host", reason: "test over"))
            close(sockets.host)
            close(sockets.user)
        }
    }

    /// A value and nothing come back through the host; an error thrown arrives with its type and text.
    @Test func aCallOnALentProxyIsAnsweredByTheProcessThatServesIt() async throws {
        let systems = try ThreeSystems()
        let proxy = try systems.proxy()
        #expect(try await proxy.add(Pair(left: 2, right: 40, label: "sum")) == Pair(left: 42, right: 0, label: "sum!"))
        try await proxy.nothing()
        await #expect(throws: PluginActorError.remoteFailure(peer: "host", type: String(reflecting: CalculatorFailure.self),
                                                             message: "failure: no luck")) {
            try await proxy.fail("no luck")
        }
    }

    /// A call the user cancels is cancelled in the process that serves it, through the host.
    @Test func aCancelledCallIsCancelledWhereItIsServed() async throws {
        let systems = try ThreeSystems()
        let proxy = try systems.proxy()
        let call = Task { try await proxy.hang() }
        // Once the serving process runs it (a call pending in the host may not be sent yet: cancelled
        // then, it is never sent, and there is nothing to cancel where it is served).
        try await waitUntil { try await systems.two.calculator.hangsStarted() > 0 }
        call.cancel()
        await #expect(throws: (any Error).self) { try await call.value }
        try await waitUntil { try await systems.two.calculator.hangsCancelled() > 0 }
        #expect(try await systems.two.calculator.hangsCancelled() == 1)
    }
}
