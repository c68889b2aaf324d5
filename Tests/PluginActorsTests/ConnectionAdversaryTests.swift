import Dispatch
import Distributed
import Glibc
import Synchronization
import Testing
@_spi(HostKit) @testable import PluginActors

/// An adversary's pass over a connection: a peer process that writes raw frames of its own making
/// (a socket pair in the test, one end a real system, the other end the test's bytes). Each test
/// shows one way a hostile or careless peer gets more from the connection than it should.
@Suite(.serialized) struct ConnectionAdversaryTests {
    /// A distributed method of another actor type than the one served under the name the peer
    /// calls: the peer names the method's target, the serving side must refuse to run it on an
    /// actor of another type (the runtime's accessor casts nothing: the method would run with a
    /// `self` of the wrong layout, reading and writing the served actor's memory as its own).
    @Test func aTargetOfAnotherActorTypeIsNotRunOnTheServedActor() async throws {
        let target = try await Self.targetSent { system in
            let other = try OtherService.resolve(id: PluginActorID(peer: "raw", name: "other"), using: system)
            _ = try await other.reveal()
        }
        #expect(TargetName.readable(target).contains("OtherService.reveal"), "\(TargetName.readable(target))")

        let served = try RawPeer(serving: LocalCalculator(actorSystem: PluginActorSystem()), as: "calc")
        try served.send(.call, call: 1) { body in
            body.appendShortText("calc")
            body.appendShortText(target)
            body.append(contentsOf: [0, 0])
        }
        let reply = try #require(await served.nextFrame())
        #expect(reply.call == 1)
        // Refused as a method the served actor does not have, not answered from its memory.
        #expect(reply.kind == .failure, "OtherService.reveal ran on a LocalCalculator and answered \(reply.kind)")
        if reply.kind == .failure {
            let failure = try WireFormat.decode(Frame.Failure.self, from: reply.body)
            #expect(failure.reason == .notServed, "\(failure)")
        }
    }

    /// A flood of calls from the peer: each call frame starts a task at once, however many are
    /// already running, so a peer that sends calls faster than they end makes the serving side
    /// hold an unbounded number of tasks (memory the peer chooses). The serving side should stop
    /// reading (or refuse calls) past a bound of calls in flight per connection.
    @Test func aFloodOfCallsDoesNotStartATaskForEach() async throws {
        let (started, served, holdCall) = try await Self.servedHolder()
        let flood = 10_000
        var frames: [UInt8] = []
        for call in 1...flood { frames += holdCall(UInt64(call)) }
        // The serving side may end the connection meanwhile (a flood): the rest of the bytes then fail.
        try? served.sendRaw(frames)
        // Until the serving side ended the connection (a flood: it starts no call after that), or started
        // more calls than the bound allows. The sender got every frame through or met the end by now;
        // a serving side that neither read them all nor ended the connection would have kept it waiting.
        try await waitUntil { served.connection.isEnded || started.value.load(ordering: .relaxed) > 1024 }
        let count = started.value.load(ordering: .relaxed)
        #expect(count <= 1024, "\(count) calls of one peer were started at once")
    }

    /// A peer that sends a call under the number of a call still served: before, the second took
    /// the first's place, so the first's task could no longer be cancelled (not by the peer, not
    /// when the connection ended) and each reply named a call that could be either. A number in use
    /// is a broken protocol: the connection ends, and the calls it served are cancelled.
    @Test func aCallNumberStillInUseEndsTheConnection() async throws {
        let (started, served, holdCall) = try await Self.servedHolder()
        let call = holdCall(1)
        try served.sendRaw(call)
        try await waitUntil { started.value.load(ordering: .relaxed) == 1 }
        #expect(!served.connection.isEnded)
        try served.sendRaw(call)
        try await waitUntil { served.connection.isEnded }
        // The one call the holder started was cancelled: its task ended (no second one ran).
        try await waitUntil { started.cancelled.load(ordering: .relaxed) == 1 }
        #expect(started.value.load(ordering: .relaxed) == 1)
    }

    /// Frames larger than the reader's buffer are handed to their call or reply as they were read:
    /// a large value for no call is dropped, a large call whose target is cut short is answered with
    /// that failure, and the connection reads on (a call after them is served); a frame announcing
    /// more than ``Frame/maximumBody`` ends the connection before anything is allocated for it.
    @Test func largeFramesOfAHostilePeerAreHandledAndAnOversizedOneEndsTheConnection() async throws {
        let (started, served, holdCall) = try await Self.servedHolder()
        try served.send(.value, call: 99) { $0.append(contentsOf: [UInt8](repeating: 7, count: 1 << 20)) }
        // The name takes all but one byte of the body: the target's length is cut short.
        try served.send(.call, call: 5) { body in
            body.appendLittleEndian(UInt16.max)
            body.append(contentsOf: [UInt8](repeating: UInt8(ascii: "n"), count: Int(UInt16.max)))
            body.append(1)
        }
        let answer = try #require(await served.nextFrame())
        #expect(answer.kind == .failure && answer.call == 5)
        let failure = try WireFormat.decode(Frame.Failure.self, from: answer.body)
        #expect(failure.reason == .invalidMessage && failure.message.contains("cut short"))
        try served.sendRaw(holdCall(6))
        try await waitUntil { started.value.load(ordering: .relaxed) == 1 }
        #expect(!served.connection.isEnded)
        var oversized: [UInt8] = []
        oversized.appendLittleEndian(UInt32(Frame.maximumBody + 10))
        oversized.append(Frame.Kind.value.rawValue)
        oversized.appendLittleEndian(UInt64(7))
        try served.sendRaw(oversized)
        try await waitUntil { served.connection.isEnded }
    }

    /// A peer that stops reading (stopped, or hostile) while calls with large arguments are made
    /// to it: each call writes its frame synchronously on the calling task's thread, blocking in
    /// `poll` (or on the connection's write lock) until the call's timeout. Swift concurrency has
    /// one such thread per core, so a few calls to one stalled peer stop every task of the
    /// process, calls to other peers and the host's own work included, for the whole timeout.
    @Test
    func aPeerThatStopsReadingDoesNotStallTheRestOfTheProcess() async throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let system = PluginActorSystem()
        // Blocked writes held their threads until this timeout: far past the bound of the probe below.
        let timeout = Duration.seconds(20 * 60)
        let connection = try system.connect(peer: "stalled", socket: pair[0], callTimeout: timeout,
                                            serve: { _ in throw PluginActorError.unsupported("nothing served") })
        defer { connection.close(.unavailable(peer: "stalled", reason: "test over")) }
        let proxy = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "stalled", name: "calc"), using: system)
        // pair[1] never reads: after a few hundred kilobytes, every write waits. Eight calls are four
        // times the threads of Swift concurrency on two cores; more only add encoding, which is
        // CPU work on those threads (32 of 1 MiB made a task under AddressSanitizer wake 6 s late).
        let large = String(repeating: "x", count: 256 << 10)
        let calls = (0..<8).map { index in
            Task { _ = try? await proxy.add(Pair(left: index, right: 0, label: large)) }
        }
        // Once all eight calls wait for their answers (their frames written, or waiting to be), a task
        // of the pool must run while they wait. With writes that block the pool, the calls never all
        // get under way, and the task runs only once their timeout ends the writes: past the bound,
        // which only keeps that failure from hanging.
        let probe = await Self.poolTaskRuns(whileHeld: { connection.pendingCalls == 8 }, within: .seconds(5 * 60)) {
            connection.close(.unavailable(peer: "stalled", reason: "the probe is done"))
        }
        for call in calls { call.cancel() }
        #expect(probe.underWay, "\(connection.pendingCalls) of the 8 calls were made")
        // The point of the test is the wait: an unrelated task must not wait for the stalled peer's timeout.
        #expect(probe.ran, "no task of Swift concurrency ran while 8 calls wrote to a peer that reads nothing")
    }

    /// A caller's timeout too long to count in milliseconds (`withCallTimeout(.seconds(Int64.max))`,
    /// meant as "no timeout"), on a call whose frame must wait for room in the socket: `SocketIO.wait`
    /// multiplies the seconds left by 1000 before it clamps them, and the overflow traps.
    @Test
    func aTimeoutTooLongToCountInMillisecondsIsNoCrash() async throws {
        let stalled = try RawPeer(connecting: PluginActorSystem(), as: "stalled")
        let proxy = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "stalled", name: "calc"),
                                                               using: stalled.system)
        let call = Task {
            try await PluginActorSystem.withCallTimeout(.seconds(Int64.max)) {
                _ = try await proxy.add(Pair(left: 1, right: 2, label: String(repeating: "x", count: 1 << 22)))
            }
        }
        try await waitUntil { stalled.connection.pendingCalls > 0 }
        try await Task.sleep(for: .seconds(1))
        stalled.connection.close(.unavailable(peer: "stalled", reason: "test over"))
        await #expect(throws: PluginActorError.self) { try await call.value }
    }

    /// Whether a task of Swift concurrency's pool runs while some work holds on, asked from a thread
    /// of its own (a task that asked would wait for the pool itself, and find it free only once the
    /// work let go): once `underWay` holds, a task is started and awaited, each wait at most `limit`;
    /// then `release` lets the work go, from that thread too (the test's task resumes on the pool).
    /// TestSupport's `aPoolTaskRuns`, which this target does not link (TestSupport links HostKit).
    static func poolTaskRuns(whileHeld underWay: @escaping @Sendable () -> Bool, within limit: Duration,
                             release: @escaping @Sendable () -> Void) async -> (underWay: Bool, ran: Bool) {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return await withCheckedContinuation { continuation in
            let started = DetachedThread.start {
                let deadline = DispatchTime.now() + seconds
                while !underWay(), DispatchTime.now() < deadline { usleep(20_000) }
                let ran = DispatchSemaphore(value: 0)
                Task.detached { ran.signal() }
                let result = (underWay(), ran.wait(timeout: .now() + seconds) == .success)
                release()
                continuation.resume(returning: result)
            }
            if !started {
                release()
                continuation.resume(returning: (false, false))
            }
        }
    }

    /// A ``Holder`` served to a raw peer, what it counts, and the frame of a call of its `hold()`
    /// under a number.
    static func servedHolder() async throws -> (StartedCalls, RawPeer, (UInt64) -> [UInt8]) {
        let started = StartedCalls()
        let holder = Holder(started: started, actorSystem: PluginActorSystem())
        let target = try await targetSent { system in
            let proxy = try Holder.resolve(id: PluginActorID(peer: "raw", name: "holder"), using: system)
            try await proxy.hold()
        }
        let call = { (number: UInt64) in
            Frame.bytes(.call, call: number) { body in
                body.appendShortText("holder")
                body.appendShortText(target)
                body.append(contentsOf: [0, 0])
            }
        }
        return (started, try RawPeer(serving: holder, as: "holder"), call)
    }

    /// The target the system sends for the call `body` makes to the peer "raw" (a socket that the
    /// test reads and never answers).
    static func targetSent(by body: @escaping @Sendable (PluginActorSystem) async throws -> Void) async throws -> String {
        try await callSent(by: body).target
    }

    /// The target and the encoded arguments the system sends for the call `body` makes to the peer
    /// "raw" (a socket that the test reads and never answers).
    static func callSent(by body: @escaping @Sendable (PluginActorSystem) async throws -> Void) async throws
        -> (target: String, arguments: [UInt8]) {
        let system = PluginActorSystem()
        let raw = try RawPeer(connecting: system, as: "raw")
        let call = Task { try await body(system) }
        defer { call.cancel() }
        guard let frame = await raw.nextFrame() else {
            call.cancel()
            Issue.record("no call frame came; the call ended with \(await call.result)")
            throw PluginActorError.unsupported("no call frame")
        }
        var reader = FrameReader(frame.body)
        _ = try reader.shortText()
        return (try reader.shortText(), Array(reader.rest))
    }
}

/// Another actor type than the one a peer is served: its method reads a stored property.
distributed actor OtherService {
    typealias ActorSystem = PluginActorSystem
    private var secret = 7

    distributed func reveal() -> Int { secret }
}

/// Counts the calls that started, and holds each until its task is cancelled.
distributed actor Holder {
    typealias ActorSystem = PluginActorSystem
    private let started: StartedCalls

    init(started: StartedCalls, actorSystem: PluginActorSystem) {
        self.started = started
        self.actorSystem = actorSystem
    }

    distributed func hold() async throws {
        started.value.add(1, ordering: .relaxed)
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            started.cancelled.add(1, ordering: .relaxed)
            throw error
        }
    }
}

/// How many calls a ``Holder`` started, and how many of them were cancelled.
final class StartedCalls: Sendable {
    let value = Atomic<Int>(0)
    let cancelled = Atomic<Int>(0)
}

/// The test's end of a socket pair whose other end is a system's connection: frames written and
/// read as raw bytes, standing for a peer process that writes what it likes.
final class RawPeer: Sendable {
    /// The test's end.
    let socket: Int32
    private let systemSocket: Int32
    let connection: PluginActorConnection
    /// The system on the other end.
    let system: PluginActorSystem

    /// A peer of a new system that serves `actor` under `name`, by the actor's own type's methods.
    convenience init(serving actor: any DistributedActor, as name: String) throws {
        try self.init(connecting: PluginActorSystem(), as: "raw-client") { asked in
            guard asked == name else { throw PluginActorError.unsupported("no \(asked)") }
            return (actor, type(of: actor))
        }
    }

    /// The peer `peer` of `system`, which serves it what `serve` gives (nothing by default).
    init(connecting system: PluginActorSystem, as peer: String,
         serve: @escaping @Sendable (String) async throws -> PluginActorSystem.Served = { _ in
             throw PluginActorError.unsupported("nothing")
         }) throws {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw PluginActorError.unsupported("socketpair failed")
        }
        systemSocket = pair[0]
        socket = pair[1]
        self.system = system
        connection = try system.connect(peer: peer, socket: systemSocket, serve: serve)
    }

    deinit {
        connection.close(.unavailable(peer: "raw", reason: "test over"))
        close(systemSocket)
        close(socket)
    }

    func send(_ kind: Frame.Kind, call: UInt64, body: (inout [UInt8]) -> Void = { _ in }) throws {
        try sendRaw(Frame.bytes(kind, call: call, body: body))
    }

    /// Writes all of `bytes`, blocking.
    func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw PluginActorError.unsupported("send failed: \(errno)") }
            offset += sent
        }
    }

    /// The next frame the system sent, read on a thread of its own (the wait must not hold a thread
    /// of Swift concurrency, which the system needs to send it); nil if none came whole within 5 minutes.
    func nextFrame() async -> Frame? {
        await withCheckedContinuation { continuation in
            _ = DetachedThread.start { continuation.resume(returning: try? self.readFrame()) }
        }
    }

    private func readFrame() throws -> Frame? {
        guard let header = readExactly(Frame.headerSize) else { return nil }
        var reader = FrameReader(header[...])
        let length = Int(try reader.integer(UInt32.self))
        guard let kind = Frame.Kind(rawValue: try reader.integer(UInt8.self)) else { return nil }
        let call = try reader.integer(UInt64.self)
        guard let body = readExactly(length - 9) else { return nil }
        return Frame(kind: kind, call: call, body: body[...])
    }

    private func readExactly(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        let deadline = ContinuousClock.now + .seconds(300)
        while filled < count {
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard ContinuousClock.now < deadline, poll(&entry, 1, 100) >= 0 else { return nil }
            if entry.revents == 0 { continue }
            let got = bytes.withUnsafeMutableBytes { recv(socket, $0.baseAddress! + filled, count - filled, 0) }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }
}
