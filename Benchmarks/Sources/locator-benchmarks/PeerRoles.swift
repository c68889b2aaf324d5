import FixtureRemoteContracts
import Glibc
@_spi(HostKit) import PluginActors

/// What a ``PeerProcess`` does, by the role it was started with (`--peer ROLE ...`); never returns.
enum PeerRoles {
    static func run(_ arguments: [String]) -> Never {
        switch arguments.first {
        case "floor"?: floor(Array(arguments.dropFirst()))
        case "actor"?: actor()
        case "shared-floor"?: sharedFloor(Array(arguments.dropFirst()))
        case "sink"?: sink()
        default: fail("unknown peer role \(arguments.first ?? "(none)")")
        }
    }

    /// The floor: reads a call of `callSize` bytes, answers with the reply's bytes (given in hex),
    /// until the stream ends. Blocking reads and writes, nothing else.
    private static func floor(_ arguments: [String]) -> Never {
        guard arguments.count == 2, let callSize = Int(arguments[0]), callSize > 0,
              let reply = bytes(hex: arguments[1]) else { fail("peer floor: arguments \(arguments)") }
        var call = [UInt8](repeating: 0, count: callSize)
        while RawSocket.read(PeerProcess.descriptor, &call, count: callSize) {
            guard RawSocket.write(PeerProcess.descriptor, reply) else { break }
        }
        exit(0)
    }

    /// The shared-memory floor's peer (``SharedMemoryFloor``): the reply's bytes in hex, the spins.
    private static func sharedFloor(_ arguments: [String]) -> Never {
        guard arguments.count == 2, let reply = bytes(hex: arguments[0]), let spins = Int32(arguments[1]) else {
            fail("peer shared-floor: arguments \(arguments)")
        }
        SharedMemoryFloor.serve(reply: reply, spins: spins)
    }

    /// The payload floor's peer (``PayloadCases``): reads a little-endian `UInt64` count and that many
    /// bytes, answers the count's 8 bytes, until the stream ends.
    private static func sink() -> Never {
        var header = [UInt8](repeating: 0, count: 8)
        var payload: [UInt8] = []
        while RawSocket.read(PeerProcess.descriptor, &header, count: 8) {
            let count = RawSocket.littleEndian(header)
            guard count <= PayloadCases.largest else { fail("peer sink: \(count) bytes announced") }
            if payload.count < count { payload = [UInt8](repeating: 0, count: count) }
            guard RawSocket.read(PeerProcess.descriptor, &payload, count: count),
                  RawSocket.write(PeerProcess.descriptor, header) else { break }
        }
        exit(0)
    }

    /// The call: this process's actor system serves ``BenchEchoService`` on the socket until the stream ends.
    private static func actor() -> Never {
        let service = BenchEchoService(actorSystem: .shared)
        let connection: PluginActorConnection
        do {
            connection = try PluginActorSystem.shared.connect(peer: "caller", socket: PeerProcess.descriptor, serve: { name in
                guard name == benchEchoName else { throw PluginActorError.unsupported("no \(name) here") }
                return (service, $BenchEcho<PluginActorSystem>.self)
            })
        } catch {
            fail("peer actor: \(error)")
        }
        while !connection.isEnded { usleep(20_000) }
        exit(0)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
