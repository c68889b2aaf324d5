import CDynamicLinker
import Foundation

/// What a host and its ``Zygote`` say to each other: one JSON message per datagram of their
/// `SOCK_SEQPACKET` socket, descriptors passed along with some (`SCM_RIGHTS`).
enum ZygoteMessage: Codable, Sendable {
    /// The zygote, once warmed: it forks children from now on.
    case ready
    /// The zygote cannot fork safely (a thread other than its own runs) and ends.
    case refused(reason: String)
    /// The host asks for a child, passing its socket and its output as two descriptors.
    case fork(ZygoteForkRequest)
    /// The zygote forked the child `pid` for the request numbered `request`, passing a pidfd of it.
    case forked(pid: Int32, request: UInt64)
    /// The zygote could not fork the child of the request numbered `request`.
    case failed(reason: String, request: UInt64)
    /// A child of the zygote ended and was reaped: its wait status and CPU time.
    case ended(pid: Int32, status: Int32, userMicroseconds: Int64, systemMicroseconds: Int64)

    /// The largest message either side takes: a fork request carries a whole environment.
    static let capacity = 1 << 18

    /// The message as the socket carries it.
    var bytes: [UInt8] { (try? Array(JSONEncoder().encode(self))) ?? [] }

    /// The message `bytes` hold, or nil.
    init?(_ bytes: ArraySlice<UInt8>) {
        guard let message = try? JSONDecoder().decode(Self.self, from: Data(bytes)) else { return nil }
        self = message
    }
}

extension ZygoteMessage {
    /// Sends the message on `socket` with `descriptors` (at most 4); false if it could not (the peer gone).
    @discardableResult
    func send(on socket: Int32, descriptors: [Int32] = []) -> Bool {
        let bytes = self.bytes
        return bytes.withUnsafeBytes { buffer in
            // An empty message would read as the connection's end: none is sent.
            guard let start = buffer.baseAddress, buffer.count > 0 else { return false }
            return descriptors.withUnsafeBufferPointer { passed in
                process_send_with_descriptors(socket, start, buffer.count, passed.baseAddress, Int32(passed.count)) == 0
            }
        }
    }

    /// The next message on `socket`, and the descriptors passed with it (the caller's to close, also
    /// with a message that does not read, nil); nil once the peer closed the connection or it failed.
    /// `buffer` is the caller's, kept from one message to the next (a new one of ``capacity`` bytes
    /// for each, fresh pages faulted in, took 0.2 ms of a fork), and zeroed once the message is read.
    static func receive(from socket: Int32, into buffer: inout [UInt8]) -> (message: ZygoteMessage?, descriptors: [Int32])? {
        if buffer.count < capacity { buffer = [UInt8](repeating: 0, count: capacity) }
        var descriptors = [Int32](repeating: -1, count: 4)
        var count: Int32 = 0
        let got = buffer.withUnsafeMutableBytes { bytes in
            // `capacity` bytes: never an empty buffer.
            bytes.baseAddress.map { process_receive_with_descriptors(socket, $0, bytes.count, &descriptors, 4, &count) } ?? -1
        }
        guard got > 0 else { return nil }
        let message = ZygoteMessage(buffer[..<Int(got)])
        // Not left in the buffer for a child forked later to read (another child's request: its
        // environment); the decoder's own copies are freed, not zeroed (SECURITY.md says so).
        buffer.withUnsafeMutableBytes { bytes in _ = bytes.baseAddress.map { memset($0, 0, Int(got)) } }
        return (message, Array(descriptors.prefix(Int(count))))
    }
}
