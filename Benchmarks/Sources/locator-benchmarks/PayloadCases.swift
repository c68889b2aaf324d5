import Glibc

/// A large argument through a call (issue 43, item 2): `BenchEcho.count` given 1 MiB and 16 MiB of
/// bytes, against `memcpy` of the same bytes in this process (what shared memory would at best cost
/// per copy) and a raw write of them through a socket pair to a peer that reads them and answers 8
/// bytes (the socket's own floor). The three take turns, in rotating order; ms per transfer.
enum PayloadCases {
    static let sizes = [1 << 20, 16 << 20]
    /// The most bytes the sink peer accepts.
    static let largest = 16 << 20

    struct Row: Sendable {
        let size: Int
        let memcpy: [Double]
        let socket: [Double]
        let call: [Double]
    }

    static func run(_ proxy: any BenchEcho, repetitions: Int) -> [Row] {
        let sink = PeerProcess.start("sink")
        defer { sink.finish() }
        return sizes.map { size in
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var copy = [UInt8](repeating: 1, count: size)
            var memcpyTimes: [Double] = [], socketTimes: [Double] = [], callTimes: [Double] = []
            // One of each first, not kept: the first call of a size grows both processes' buffers.
            for repetition in -1..<repetitions {
                var times = [0.0, 0.0, 0.0]
                for turn in 0..<3 {
                    let which = (turn + max(repetition, 0)) % 3
                    switch which {
                    case 0: times[0] = timeMemcpy(bytes, into: &copy)
                    case 1: times[1] = timeSocket(bytes, through: sink)
                    default: times[2] = timeCall(bytes, proxy)
                    }
                }
                guard repetition >= 0 else { continue }
                memcpyTimes.append(times[0])
                socketTimes.append(times[1])
                callTimes.append(times[2])
            }
            return Row(size: size, memcpy: memcpyTimes, socket: socketTimes, call: callTimes)
        }
    }

    private static func timeMemcpy(_ bytes: [UInt8], into copy: inout [UInt8]) -> Double {
        let start = now()
        copy.withUnsafeMutableBytes { out in bytes.withUnsafeBytes { out.copyMemory(from: $0) } }
        return Double(now() - start) / 1e6
    }

    private static func timeSocket(_ bytes: [UInt8], through sink: PeerProcess) -> Double {
        let header = (0..<8).map { UInt8(truncatingIfNeeded: bytes.count >> ($0 * 8)) }
        var answer = [UInt8](repeating: 0, count: 8)
        let start = now()
        guard RawSocket.write(sink.socket, header), RawSocket.write(sink.socket, bytes),
              RawSocket.read(sink.socket, &answer, count: 8) else { fail("payloads: the sink peer ended") }
        let elapsed = Double(now() - start) / 1e6
        guard answer == header else { fail("payloads: the sink answered \(answer)") }
        return elapsed
    }

    private static func timeCall(_ bytes: [UInt8], _ proxy: any BenchEcho) -> Double {
        let (elapsed, count) = mustAwait("payloads: a call failed") {
            let start = now()
            let count = try await proxy.count(bytes)
            return (Double(now() - start) / 1e6, count)
        }
        guard count == bytes.count else { fail("payloads: the peer counted \(count) of \(bytes.count) bytes") }
        return elapsed
    }
}
