import Dispatch
import Distributed
import Foundation
import Glibc
@_spi(HostKit) @testable import PluginActors
import Testing

/// Calls made while another process is restarted wait for the process that takes its place
/// (`callsWaitForSuccessor`), instead of failing: a restart costs the calls in flight only.
@Suite struct SuccessorTests {
    /// A process that takes the child's place: its own system and calculator, joined to the host's
    /// system under the same peer name, its connection carrying only `passing` calls until the hold is lifted.
    final class Successor: Sendable {
        let system = PluginActorSystem()
        let calculator: LocalCalculator
        let sockets: [Int32]
        let hostConnection: PluginActorConnection
        let connection: PluginActorConnection

        /// `peer`: the name the host's system connects it under (a standby's own, until it is transferred).
        init(of systems: TwoSystems, passing: Set<String>, peer: String = "child") throws {
            var pair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                throw PluginActorError.unsupported("socketpair failed")
            }
            sockets = pair
            let calculator = LocalCalculator(actorSystem: system)
            self.calculator = calculator
            hostConnection = try systems.host.connect(peer: peer, socket: pair[0], callTimeout: .seconds(300),
                                                      serve: { _ in throw PluginActorError.unsupported("nothing") },
                                                      endReason: { "the successor's test end" }, callEnded: nil,
                                                      callsWaitForSuccessor: passing)
            connection = try system.connect(peer: "host", socket: pair[1], serve: { name in
                guard name == "calc" || name == "control" else { throw PluginActorError.unsupported("no \(name)") }
                return (calculator, $Calculator<PluginActorSystem>.self)
            })
        }

        deinit {
            hostConnection.close(.unavailable(peer: "child", reason: "test over"))
            connection.close(.unavailable(peer: "host", reason: "test over"))
            for socket in sockets { close(socket) }
        }
    }

    /// How many calls to `peer` wait for its successor in `system`.
    static func waiting(in system: PluginActorSystem, for peer: String = "child") -> Int {
        system.peers.withLock { peers in
            guard case let .held(hold)? = peers[peer] else { return 0 }
            return hold.waiters.count
        }
    }

    /// The child's process ends (its end of the socket goes): the host's side sees the end itself.
    static func endChild(of systems: TwoSystems) async throws {
        systems.childConnection.close(.unavailable(peer: "host", reason: "killed"))
        try await waitUntil { systems.hostConnection.isEnded }
    }

    /// Two systems whose child ended, and a call of `add(pair)` made then (with `timeout`, if given),
    /// once it waits for a successor.
    static func callWaitingForASuccessor(_ pair: Pair, timeout: Duration? = nil) async throws -> (TwoSystems, Task<Pair, any Error>) {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        let proxy = try systems.proxy()
        #expect(try await proxy.add(Pair(left: 1, right: 1, label: "")).left == 2)
        try await endChild(of: systems)
        let call = Task {
            guard let timeout else { return try await proxy.add(pair) }
            return try await PluginActorSystem.withCallTimeout(timeout) { try await proxy.add(pair) }
        }
        try await waitUntil { waiting(in: systems.host) == 1 }
        return (systems, call)
    }

    @Test func aCallMadeWhileTheProcessRestartsIsAnsweredByItsSuccessor() async throws {
        let (systems, call) = try await Self.callWaitingForASuccessor(Pair(left: 20, right: 22, label: "after"))
        let proxy = try systems.proxy()
        // The successor connects: the host's steps (calls to "control") reach it; the others wait on.
        let successor = try Successor(of: systems, passing: ["control"])
        let control = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "child", name: "control"), using: systems.host)
        #expect(try await control.add(Pair(left: 2, right: 3, label: "")).left == 5)
        try await waitUntil { Self.waiting(in: systems.host) == 1 }
        // It serves: the call that waited is answered by it, and later calls go to it.
        systems.host.liftHold(peer: "child", to: successor.hostConnection)
        #expect(try await call.value == Pair(left: 42, right: 0, label: "after!"))
        #expect(try await proxy.add(Pair(left: 1, right: 2, label: "")).left == 3)
        withExtendedLifetime(successor) {}
    }

    /// A process connected ahead under a name of its own (a standby) serves that name only; once
    /// transferred to the ended child's name it is that child's successor: the host's steps reach it,
    /// the calls that waited go to it once the hold is lifted, and its old name reaches nothing.
    @Test func aConnectionTransferredToAnEndedPeerIsItsSuccessor() async throws {
        let (systems, call) = try await Self.callWaitingForASuccessor(Pair(left: 40, right: 2, label: "moved"))
        let standby = try Successor(of: systems, passing: ["control"], peer: "child (standby)")
        let control = { (peer: String) in
            try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: peer, name: "control"), using: systems.host)
        }
        // Connected ahead: its own name reaches it, and the ended child's calls go on waiting.
        #expect(try await control("child (standby)").add(Pair(left: 1, right: 1, label: "")).left == 2)
        await #expect(throws: PluginActorError.self) { try await control("child").nothing() }
        #expect(Self.waiting(in: systems.host) == 1)

        // To the name it has: nothing to move.
        #expect(systems.host.transfer(standby.hostConnection, to: "child (standby)"))
        #expect(try await control("child (standby)").add(Pair(left: 1, right: 2, label: "")).left == 3)
        #expect(systems.host.transfer(standby.hostConnection, to: "child"))
        #expect(try await control("child").add(Pair(left: 2, right: 3, label: "")).left == 5)
        // Only the host's steps pass before the hold is lifted: the call that waited, woken by the
        // move, waits again.
        try await waitUntil { Self.waiting(in: systems.host) == 1 }
        do {
            try await control("child (standby)").nothing()
            Issue.record("the standby's old name still reaches it")
        } catch let PluginActorError.unavailable(peer, reason) {
            #expect(peer == "child (standby)" && reason.contains("no process of that name"), "\(reason)")
        }
        systems.host.liftHold(peer: "child", to: standby.hostConnection)
        #expect(try await call.value == Pair(left: 42, right: 0, label: "moved!"))
        // Its end is now the end of "child": a later call waits for the next successor, or says so.
        standby.connection.close(.unavailable(peer: "host", reason: "killed"))
        try await waitUntil { standby.hostConnection.isEnded }
        do {
            try await PluginActorSystem.withCallTimeout(.milliseconds(200)) { try await systems.proxy().nothing() }
            Issue.record("a call reached a connection that ended")
        } catch let PluginActorError.processEnded(peer, _) {
            #expect(peer == "child")
        }
    }

    /// A connection that ended before it was transferred (a standby that died as a restart took it)
    /// is not moved: the ended child's calls go on waiting, and the host's steps fail as that child did.
    @Test func aConnectionThatEndedIsNotTransferred() async throws {
        let (systems, call) = try await Self.callWaitingForASuccessor(Pair(left: 1, right: 2, label: "later"))
        let standby = try Successor(of: systems, passing: ["control"], peer: "child (standby)")
        standby.connection.close(.unavailable(peer: "host", reason: "killed"))
        try await waitUntil { standby.hostConnection.isEnded }
        #expect(!systems.host.transfer(standby.hostConnection, to: "child"))
        let control = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "child", name: "control"), using: systems.host)
        do {
            try await control.nothing()
            Issue.record("a step reached a connection that ended")
        } catch let PluginActorError.processEnded(peer, reason) {
            #expect(peer == "child" && reason.contains("the child's test end"), "\(reason)")
        }
        #expect(Self.waiting(in: systems.host) == 1)
        // The next successor serves the call that waited.
        let next = try Successor(of: systems, passing: ["control"])
        systems.host.liftHold(peer: "child", to: next.hostConnection)
        #expect(try await call.value.left == 3)
    }

    /// A call whose write finds the other process gone was never sent: it goes to the successor too,
    /// instead of failing (before, it failed with "writing to the socket failed: Broken pipe").
    @Test func aCallThatCouldNotBeSentIsAnsweredByTheSuccessor() async throws {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        let proxy = try systems.proxy()
        // Writes fail as to a process that is gone (EPIPE), while the reader has seen no end yet.
        #expect(shutdown(systems.hostSocket, Int32(SHUT_WR)) == 0)
        let call = Task { try await proxy.add(Pair(left: 40, right: 2, label: "unsent")) }
        try await waitUntil { Self.waiting(in: systems.host) == 1 }
        let successor = try Successor(of: systems, passing: ["control"])
        systems.host.liftHold(peer: "child", to: successor.hostConnection)
        #expect(try await call.value == Pair(left: 42, right: 0, label: "unsent!"))
        withExtendedLifetime(successor) {}
    }

    /// A timeout of "forever" (`.seconds(Int64.max)`, which operators and callers may set) while the
    /// call waits: the clock trapped on the deadline's instant, ending the host's process.
    @Test func aCallWithATimeoutOfForeverWaitsForTheSuccessorWithoutATrap() async throws {
        let (systems, call) = try await Self.callWaitingForASuccessor(Pair(left: 1, right: 2, label: "forever"),
                                                                      timeout: .seconds(Int64.max))
        let successor = try Successor(of: systems, passing: ["control"])
        systems.host.liftHold(peer: "child", to: successor.hostConnection)
        #expect(try await call.value == Pair(left: 3, right: 0, label: "forever!"))
    }

    /// The host lifts the hold for the successor whose plugin it started; if that one ended and
    /// another connected since, the lift is for no one: the calls wait on for the newer one's start.
    @Test func aLiftForASuccessorThatEndedLeavesTheCallsWaitingForTheNext() async throws {
        let (systems, call) = try await Self.callWaitingForASuccessor(Pair(left: 5, right: 5, label: "next"))
        let first = try Successor(of: systems, passing: ["control"])
        first.connection.close(.unavailable(peer: "host", reason: "the first successor ends"))
        try await waitUntil { first.hostConnection.isEnded }
        let second = try Successor(of: systems, passing: ["control"])
        // The first one's start returned just as it ended: its lift must not open the peer to the second.
        systems.host.liftHold(peer: "child", to: first.hostConnection)
        try await waitUntil { Self.waiting(in: systems.host) == 1 }
        systems.host.liftHold(peer: "child", to: second.hostConnection)
        #expect(try await call.value == Pair(left: 10, right: 0, label: "next!"))
    }

    @Test func aCallThatWaitsPastItsTimeoutFailsWithHowTheProcessEnded() async throws {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        let proxy = try systems.proxy()
        try await Self.endChild(of: systems)
        do {
            try await PluginActorSystem.withCallTimeout(.milliseconds(200)) { try await proxy.nothing() }
            Issue.record("a call to no process returned")
        } catch let PluginActorError.processEnded(peer, reason) {
            #expect(peer == "child")
            #expect(reason == "the child's test end; no process served it again within the call's timeout")
        }
        #expect(Self.waiting(in: systems.host) == 0)
    }

    /// The host's own steps never wait: with no successor yet, they fail as the process did.
    @Test func aCallThatPassesTheHoldFailsAtOnceWithNoSuccessor() async throws {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        try await Self.endChild(of: systems)
        let control = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "child", name: "control"), using: systems.host)
        await #expect(throws: PluginActorError.processEnded(peer: "child", reason: "the child's test end")) {
            try await PluginActorSystem.withCallTimeout(.seconds(300)) { try await control.nothing() }
        }
    }

    @Test func aPeerMarkedUnavailableFailsTheCallsThatWaited() async throws {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        let proxy = try systems.proxy()
        try await Self.endChild(of: systems)
        let calls = (0..<3).map { _ in Task { try await proxy.nothing() } }
        try await waitUntil { Self.waiting(in: systems.host) == 3 }
        systems.host.markUnavailable(peer: "child", reason: "withdrawn")
        for call in calls {
            await #expect(throws: PluginActorError.unavailable(peer: "child", reason: "withdrawn")) { try await call.value }
        }
    }

    @Test func aWaitingCallThatIsCancelledEndsAtOnce() async throws {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        let proxy = try systems.proxy()
        try await Self.endChild(of: systems)
        let call = Task { try await proxy.nothing() }
        try await waitUntil { Self.waiting(in: systems.host) == 1 }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(Self.waiting(in: systems.host) == 0)
    }

    /// Only the other process's end holds calls: a connection this side closed leaves the peer down.
    @Test func aConnectionThisSideClosedFailsLaterCallsAtOnce() async throws {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        let proxy = try systems.proxy()
        systems.hostConnection.close(.unavailable(peer: "child", reason: "closed here"))
        await #expect(throws: PluginActorError.unavailable(peer: "child", reason: "closed here")) {
            try await PluginActorSystem.withCallTimeout(.seconds(300)) { try await proxy.nothing() }
        }
    }

    /// Without `callsWaitForSuccessor`, the end fails later calls at once, as it always did.
    @Test func withoutTheHoldTheEndFailsLaterCallsAtOnce() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        try await Self.endChild(of: systems)
        await #expect(throws: PluginActorError.processEnded(peer: "child", reason: "the child's test end")) {
            try await PluginActorSystem.withCallTimeout(.seconds(300)) { try await proxy.nothing() }
        }
    }

    /// A restart after the peer went down (a crash loop's pause, a broken connection) connects under
    /// a hold too: calls made while it loads wait for its start. Before, the new connection served
    /// them at once, before its plugin started ("its plugin has not started yet").
    @Test func aSuccessorOfAPeerThatWentDownServesOnlyTheHostsStepsUntilItStarts() async throws {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        let proxy = try systems.proxy()
        try await Self.endChild(of: systems)
        systems.host.markUnavailable(peer: "child", reason: "a new one starts in 0.1 seconds")
        await #expect(throws: PluginActorError.unavailable(peer: "child", reason: "a new one starts in 0.1 seconds")) {
            try await proxy.nothing()
        }
        let successor = try Successor(of: systems, passing: ["control"])
        let call = Task { try await proxy.add(Pair(left: 4, right: 4, label: "down")) }
        try await waitUntil { Self.waiting(in: systems.host) == 1 }
        let control = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "child", name: "control"), using: systems.host)
        #expect(try await control.add(Pair(left: 2, right: 3, label: "")).left == 5)
        #expect(Self.waiting(in: systems.host) == 1)
        systems.host.liftHold(peer: "child", to: successor.hostConnection)
        #expect(try await call.value == Pair(left: 8, right: 0, label: "down!"))
    }

    /// Past ``PeerHold/mostWaiters`` calls waiting for one successor, a call fails at once: a child
    /// that never starts cannot gather a continuation and a timer per request.
    @Test func aCallPastTheMostThatMayWaitFailsAtOnce() async throws {
        let systems = try TwoSystems(callsWaitForSuccessor: ["control"])
        let proxy = try systems.proxy()
        try await Self.endChild(of: systems)
        let calls = (0..<PeerHold.mostWaiters).map { _ in Task { try await proxy.nothing() } }
        try await waitUntil { Self.waiting(in: systems.host) == PeerHold.mostWaiters }
        let reason = "its process is restarting, and \(PeerHold.mostWaiters) calls wait for it already"
        await #expect(throws: PluginActorError.unavailable(peer: "child", reason: reason)) { try await proxy.nothing() }
        systems.host.markUnavailable(peer: "child", reason: "test over")
        for call in calls { _ = try? await call.value }
        #expect(Self.waiting(in: systems.host) == 0)
    }

    /// Whoever ends a connection second (a caller whose write failed as the reader saw the end)
    /// returns only once the system heard of the first end: the caller then finds the peer held, and
    /// its unsent call waits for the successor. Before, it returned at once, found the peer still
    /// naming the ended connection, and failed.
    @Test func aSecondEndReturnsOnlyOnceTheSystemHeardOfTheFirst() async throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { for socket in pair { close(socket) } }
        // Every wait on threads of their own: a blocked thread of Swift concurrency (there are two on
        // this machine) hung the whole suite once another test held the other.
        let events = Lock<[String]>([])
        let told = DispatchSemaphore(value: 0)
        let connection = PeerConnection(peer: "child", socket: pair[0], callTimeout: .seconds(300), system: PluginActorSystem(),
                                        serve: { _ in throw PluginActorError.unsupported("nothing") }, endReason: { "ended" }) { _, _, _ in
            events.withLock { $0.append("the system hears") }
            told.wait()
            events.withLock { $0.append("the system heard") }
        }
        Thread.detachNewThread { connection.close(.unavailable(peer: "child", reason: "first")) }
        try await waitUntil { events.withLock { $0 } == ["the system hears"] }
        Thread.detachNewThread {
            connection.close(.unavailable(peer: "child", reason: "second"))
            events.withLock { $0.append("the second end returned") }
        }
        // Time for a second end that does not wait to return (it must not; with the fix it cannot).
        try await Task.sleep(for: .milliseconds(100))
        told.signal()
        try await waitUntil { events.withLock { $0.count } == 3 }
        #expect(events.withLock { $0 } == ["the system hears", "the system heard", "the second end returned"])
    }
}
