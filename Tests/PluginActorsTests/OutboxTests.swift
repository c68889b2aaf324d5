import Glibc
@testable import PluginActors
import Testing

/// The frames an outbox keeps for a peer that reads slowly, or never.
@Suite struct OutboxTests {
    /// A frame larger than the socket takes at once waits in part (as a slice of it); when the
    /// connection breaks nothing of it is written any more, and the outbox lets go of it at once,
    /// not when it is freed (a caller's 16 MiB argument was held as long as the connection object).
    @Test func aBrokenOutboxLetsGoOfTheFramesThatWait() throws {
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        // No writer thread: what the socket does not take at once waits.
        let outbox = Outbox(socket: pair[0], stall: .seconds(60))
        let frame = Frame.bytes(.value, call: 1) { $0.append(contentsOf: [UInt8](repeating: 7, count: 4 << 20)) }
        #expect(outbox.send(frame) == nil)
        #expect(outbox.send(frame) == nil)
        let waiting = outbox.waitingCount
        #expect(waiting > 4 << 20 && waiting < 2 * frame.count)
        outbox.shutDown(SocketIO.Broken(description: "the test is over"))
        #expect(outbox.waitingCount == 0)
        #expect(outbox.send(frame) != nil)
        outbox.close()
    }

    /// Frames that queue up behind a large one (sent in part at once) come out whole and in order:
    /// the large one's rest as it is, the small ones joined into writes of at most
    /// ``Outbox/joinedUpTo`` bytes, a large tail sent apart from its head in between.
    @Test func framesThatQueueUpAreWrittenInOrder() throws {
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        let outbox = Outbox(socket: pair[0], stall: .seconds(60))
        try #require(outbox.start { _ in })
        defer { outbox.close() }
        var sent: [UInt8] = []
        let large = Frame.bytes(.value, call: 1) { $0.append(contentsOf: [UInt8](repeating: 1, count: 1 << 20)) }
        #expect(outbox.send(large) == nil)
        sent += large
        for call in UInt64(2)..<2_000 {
            let frame: [ArraySlice<UInt8>] = call == 1_000
                ? Frame.parts(.value, call: call, tail: [UInt8](repeating: 3, count: 300 * 1024))
                : [Frame.bytes(.value, call: call) { $0.append(contentsOf: [UInt8](repeating: UInt8(call % 251), count: 300)) }[...]]
            #expect(outbox.send(parts: frame) == nil)
            sent += frame.joined()
        }
        var received = [UInt8](repeating: 0, count: sent.count)
        var filled = 0
        while filled < sent.count {
            let count = received.withUnsafeMutableBytes { read(pair[1], $0.baseAddress! + filled, sent.count - filled) }
            try #require(count > 0)
            filled += count
        }
        #expect(received == sent)
    }
}
