import Distributed
import Glibc
@_spi(HostKit) @testable import PluginActors
import Testing

@Suite struct PluginActorSystemTests {
    @Test func aCallCarriesAStructThereAndBack() async throws {
        let systems = try TwoSystems()
        let result = try await systems.proxy().add(Pair(left: 2, right: 40, label: "sum"))
        #expect(result == Pair(left: 42, right: 0, label: "sum!"))
        try await systems.proxy().nothing()
    }

    /// A call whose frames are larger than a connection's read buffer (64 KiB): the buffer grows for
    /// the frame, and must keep that size until the frame is whole. (A plugin's log line of 256 KiB,
    /// sent to the host's log, is such a call.)
    @Test func aCallLargerThanTheReadBufferCarriesItsValueThereAndBack() async throws {
        // Not the point of the test: a call the reader drops fails in a minute, not the default five.
        let systems = try TwoSystems(callTimeout: .seconds(60))
        let label = String(repeating: "x", count: 256 * 1024)
        let result = try await systems.proxy().add(Pair(left: 2, right: 40, label: label))
        #expect(result == Pair(left: 42, right: 0, label: label + "!"))
    }

    /// Large frames in flight both ways at once: a reader hands a frame larger than its buffer to the
    /// call that keeps it (no copy) and reads on into a new buffer; an outbox keeps the rest of a frame
    /// the socket took in part as it is, with the frames queued behind it after. Each call must get
    /// its own value back, whole.
    @Test func largeCallsInFlightEachGetTheirOwnValueWhole() async throws {
        let systems = try TwoSystems(callTimeout: .seconds(60))
        let proxy = try systems.proxy()
        let results = try await withThrowingTaskGroup(of: [(String, String)].self) { group in
            for task in 0..<6 {
                group.addTask {
                    var pairs: [(String, String)] = []
                    for call in 0..<3 {
                        // Sizes between 80 KiB and 1.3 MiB, each label's characters its own.
                        let label = String(repeating: String(UnicodeScalar(UInt8(65 + task * 3 + call))), count: (80 + 200 * (task + call)) * 1024)
                        pairs.append((label, try await proxy.add(Pair(left: task, right: call, label: label)).label))
                    }
                    return pairs
                }
            }
            return try await group.reduce(into: [(String, String)]()) { $0 += $1 }
        }
        #expect(results.count == 18)
        for (sent, returned) in results { #expect(returned == sent + "!") }
    }

    /// A frame whose tail (a call's arguments, a reply's value) is sent apart from the rest has the
    /// bytes of the frame built whole, its length counting the tail, on either side of the size
    /// from which a tail is sent apart.
    @Test(arguments: [Frame.tailCopiedUpTo, Frame.tailCopiedUpTo + 1])
    func aFrameSentInPartsIsTheFrameBuiltWhole(tailSize: Int) {
        let tail = (0..<tailSize).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let parts = Frame.parts(.call, call: 9, headSize: 5, tail: tail) { $0.appendShortText("abc") }
        let whole = Frame.bytes(.call, call: 9) { bytes in
            bytes.appendShortText("abc")
            bytes.append(contentsOf: tail)
        }
        #expect(parts.count == (tailSize > Frame.tailCopiedUpTo ? 2 : 1))
        #expect(Array(parts.joined()) == whole)
    }

    @Test func manyCallsInFlightEachGetTheirOwnAnswer() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        let sums = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for task in 0..<32 {
                group.addTask {
                    var last = 0
                    for call in 0..<50 { last = try await proxy.add(Pair(left: task, right: call, label: "")).left }
                    return (task, last)
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(sums.count == 32)
        for (task, last) in sums { #expect(last == task + 49) }
    }

    @Test func anErrorTheServiceThrowsArrivesWithItsTypeAndText() async throws {
        let systems = try TwoSystems()
        await #expect(throws: PluginActorError.remoteFailure(peer: "child", type: String(reflecting: CalculatorFailure.self),
                                                             message: "failure: no luck")) {
            try await systems.proxy().fail("no luck")
        }
    }

    @Test func aCallNotAnsweredInTimeFailsAndTheConnectionGoesOn() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        do {
            try await PluginActorSystem.withCallTimeout(.milliseconds(300)) { try await proxy.hang() }
            Issue.record("a hung call returned")
        } catch let PluginActorError.timedOut(peer, target, after) {
            #expect(peer == "child")
            #expect(target.contains("hang"))
            #expect(after == .milliseconds(300))
        }
        #expect(try await proxy.add(Pair(left: 1, right: 1, label: "")).left == 2)
        // The child was told: its task was cancelled.
        try await waitUntil { try await systems.calculator.hangsCancelled() == 1 }
    }

    @Test func aCancelledCallFailsAtOnceAndCancelsTheServingTask() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        let call = Task { try await proxy.hang() }
        // Cancelled once the child serves it: a serving task to cancel.
        try await waitUntil { try await systems.calculator.hangsStarted() == 1 }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        try await waitUntil { try await systems.calculator.hangsCancelled() == 1 }
    }

    @Test func everyPendingAndLaterCallFailsWhenTheOtherProcessEnds() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        let pending = (0..<4).map { _ in Task { try await proxy.hang() } }
        try await waitUntil { systems.hostConnection.pendingCalls == 4 }
        // The child's end of the socket goes, as when its process dies.
        systems.childConnection.close(.unavailable(peer: "host", reason: "killed"))
        for call in pending {
            await #expect(throws: PluginActorError.processEnded(peer: "child", reason: "the child's test end")) { try await call.value }
        }
        await #expect(throws: PluginActorError.processEnded(peer: "child", reason: "the child's test end")) {
            _ = try await proxy.add(Pair(left: 1, right: 2, label: ""))
        }
        #expect(systems.hostConnection.isEnded)
    }

    @Test func aServiceNotThereAndAProcessNotConnectedAreNamed() async throws {
        let systems = try TwoSystems()
        do {
            try await systems.proxy(named: "nope").nothing()
            Issue.record("a call to no service returned")
        } catch let PluginActorError.notServed(peer, _, reason) {
            #expect(peer == "child")
            #expect(reason.contains("nope"))
        }
        let stranger = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "stranger", name: "calc"), using: systems.host)
        await #expect(throws: PluginActorError.unavailable(peer: "stranger", reason: "no process of that name is connected")) {
            try await stranger.nothing()
        }
        systems.host.markUnavailable(peer: "child", reason: "restarting")
        await #expect(throws: PluginActorError.unavailable(peer: "child", reason: "restarting")) {
            try await systems.proxy().nothing()
        }
    }

    @Test func bytesThatBreakTheProtocolEndTheConnectionWithANamedError() async throws {
        for garbage: [UInt8] in [[0xff, 0xff, 0xff, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0, 0], [9, 0, 0, 0, 77, 1, 0, 0, 0, 0, 0, 0, 0],
                                 [3, 0, 0, 0, 1, 0, 0]] {
            var pair: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
            defer { close(pair[0]); close(pair[1]) }
            let system = PluginActorSystem()
            let connection = try system.connect(peer: "hostile", socket: pair[0], serve: { _ in throw PluginActorError.unsupported("") })
            let proxy = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "hostile", name: "calc"), using: system)
            let call = Task { try await proxy.nothing() }
            // The garbage comes while the call waits for its answer.
            try await waitUntil { connection.pendingCalls == 1 }
            _ = garbage.withUnsafeBytes { send(pair[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if garbage.count < 13 { shutdown(pair[1], Int32(SHUT_WR)) }
            do {
                try await call.value
                Issue.record("a call answered by garbage returned")
            } catch let error as PluginActorError {
                switch error {
                case .invalidMessage, .processEnded: break
                default: Issue.record("unexpected \(error)")
                }
            }
            try await waitUntil { connection.isEnded }
        }
    }

    @Test func aConnectionLeavesNoDescriptorBehind() async throws {
        var sockets: Set<String> = []
        for _ in 0..<20 {
            let systems = try TwoSystems()
            _ = try await systems.proxy().add(Pair(left: 1, right: 1, label: ""))
            for socket in [systems.hostSocket, systems.childSocket, systems.hostConnection.connection.socket,
                           systems.childConnection.connection.socket] {
                sockets.insert(try #require(descriptorTarget(socket)))
            }
        }
        // By what each descriptor is (other tests open descriptors meanwhile, and numbers are reused):
        // each reader thread closes its duplicate as it ends, a moment after the close.
        #expect(sockets.count == 40)
        try await waitUntil { openDescriptorTargets().isDisjoint(with: sockets) }
    }

    @Test func writingToAProcessThatIsGoneRaisesNoSignal() async throws {
        let systems = try TwoSystems()
        let proxy = try systems.proxy()
        systems.childConnection.close(.unavailable(peer: "host", reason: "gone"))
        // Shut, not closed: `TwoSystems` closes its sockets when it goes, and a second close of the
        // number would close whatever another test opened under it meanwhile (a connection's socket in
        // aConnectionLeavesNoDescriptorBehind, seen once under ThreadSanitizer).
        shutdown(systems.childSocket, Int32(SHUT_RDWR))
        // Without MSG_NOSIGNAL, SIGPIPE would end the test process here.
        for _ in 0..<3 { _ = try? await proxy.add(Pair(left: 1, right: 2, label: "")) }
    }
}

/// Polls `condition` until it holds; a bound only keeps a failed test from hanging: a minute and
/// 6000 checks (a task that slept can wait long for the busy pool, and that must not count), or ten.
func waitUntil(_ condition: () async throws -> Bool) async throws {
    let start = ContinuousClock.now
    var checks = 0
    while try await !condition() {
        checks += 1
        let elapsed = ContinuousClock.now - start
        guard (checks < 6000 || elapsed < .seconds(60)) && elapsed < .seconds(600) else {
            Issue.record("the condition did not come true within a minute")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
