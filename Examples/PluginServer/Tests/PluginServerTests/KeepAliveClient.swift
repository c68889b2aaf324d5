import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 client of one keep-alive connection to a loopback port, with blocking sockets: run it
/// on a thread of its own, never on Swift's cooperative pool. Thousands of requests in a test, where a
/// curl per request would cost a process each. One thread at a time uses a client.
final class KeepAliveClient: @unchecked Sendable {
    // @unchecked: used by one thread at a time (its load thread, or the test awaiting `onAThread`).

    /// A response's status and body.
    struct Answer: Equatable, CustomStringConvertible {
        let status: Int
        let body: String
        var description: String { "\(status) \(body.debugDescription)" }
    }

    /// Why a request got no answer.
    struct Failure: Error, CustomStringConvertible {
        let description: String

        static func system(_ call: String) -> Failure {
            Failure(description: "\(call): \(String(cString: strerror(errno)))")
        }
    }

    let port: UInt16
    private var socket: Int32 = -1
    /// Bytes read past the last response.
    private var buffer: [UInt8] = []

    init(port: UInt16) {
        self.port = port
    }

    deinit {
        disconnect()
    }

    /// GET `path` (with its query) on the connection, opened first if there is none. A failure
    /// closes the connection; the next request opens another.
    func get(_ path: String) throws -> Answer {
        do {
            if socket < 0 { try connect() }
            try send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            let answer = try readResponse()
            return answer
        } catch {
            disconnect()
            throw error
        }
    }

    /// Sends GET `path` (a request that takes the server a while to answer) and returns once the server
    /// has read it, at most `limit`: the kernel holds none of its bytes, unacknowledged at this end or
    /// unread at the server's (/proc/net/tcp). The request is then the server's, however late this
    /// thread got here: a test waits for that, not for a time it guesses. ``answer()`` reads the answer.
    func sendWaitingUntilRead(_ path: String, atMost limit: Duration) throws {
        do {
            if socket < 0 { try connect() }
            try send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            var address = sockaddr_in()
            var size = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &size) }
            }
            guard named == 0 else { throw Failure.system("getsockname") }
            let local = UInt16(bigEndian: address.sin_port)
            let deadline = ContinuousClock.now + limit
            while !Self.drained(from: local, to: port) {
                guard ContinuousClock.now < deadline else {
                    throw Failure(description: "the server did not read GET \(path) within \(limit)")
                }
                usleep(10_000)
            }
        } catch {
            disconnect()
            throw error
        }
    }

    /// The answer to the request ``sendWaitingUntilRead(_:atMost:)`` sent.
    func answer() throws -> Answer {
        do {
            return try readResponse()
        } catch {
            disconnect()
            throw error
        }
    }

    /// True if the loopback connection from port `client` to port `server` is established and holds
    /// no byte: none unacknowledged at the client's end (tx_queue), none unread at the server's
    /// (rx_queue), as /proc/net/tcp lists them (`local_address rem_address st tx_queue:rx_queue`).
    private static func drained(from client: UInt16, to server: UInt16) -> Bool {
        // Read to its end: String(contentsOfFile:) stops after the first page of a file of /proc.
        let table = String(decoding: FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        var queues: [String: (sent: Int, unread: Int)] = [:]
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[3] == "01" else { continue }
            let port = { (address: Substring) in address.split(separator: ":").last.flatMap { UInt16($0, radix: 16) } }
            let counts = fields[4].split(separator: ":").compactMap { Int($0, radix: 16) }
            guard let local = port(fields[1]), let remote = port(fields[2]), counts.count == 2 else { continue }
            queues["\(local)>\(remote)"] = (counts[0], counts[1])
        }
        guard let ours = queues["\(client)>\(server)"], let theirs = queues["\(server)>\(client)"] else { return false }
        return ours.sent == 0 && theirs.unread == 0
    }

    private func connect() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.system("socket") }
        // A request that gets no answer in 10 s fails rather than hangs the test.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let failure = Failure.system("connect")
            close(fd)
            throw failure
        }
        socket = fd
        buffer = []
    }

    private func disconnect() {
        if socket >= 0 { close(socket) }
        socket = -1
        buffer = []
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure.system("send") }
            sent += count
        }
    }

    /// Reads more bytes into `buffer`.
    private func receive() throws {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw count == 0 ? Failure(description: "connection closed by the server") : Failure.system("recv") }
        buffer += chunk[..<count]
    }

    /// The bytes up to `\r\n` (or `\r\n\r\n` for the head), taken off `buffer`.
    private func take(through separator: [UInt8]) throws -> [UInt8] {
        while true {
            if let end = range(of: separator) {
                defer { buffer.removeSubrange(..<end) }
                return Array(buffer[..<(end - separator.count)])
            }
            try receive()
        }
    }

    /// The end of the first `separator` in `buffer`.
    private func range(of separator: [UInt8]) -> Int? {
        guard buffer.count >= separator.count else { return nil }
        for start in 0...(buffer.count - separator.count) where buffer[start..<(start + separator.count)].elementsEqual(separator) {
            return start + separator.count
        }
        return nil
    }

    private func take(count: Int) throws -> [UInt8] {
        while buffer.count < count { try receive() }
        defer { buffer.removeSubrange(..<count) }
        return Array(buffer[..<count])
    }

    /// One response: the status line, headers, and a body of `content-length` bytes or in chunks.
    private func readResponse() throws -> Answer {
        let head = String(decoding: try take(through: Array("\r\n\r\n".utf8)), as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.first ?? ""
        guard statusLine.hasPrefix("HTTP/1.1 "), let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            throw Failure(description: "not an HTTP/1.1 status line: \(statusLine.debugDescription)")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body: [UInt8] = []
        if let length = headers["content-length"].flatMap(Int.init) {
            body = try take(count: length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let size = String(decoding: try take(through: Array("\r\n".utf8)), as: UTF8.self)
                guard let count = Int(size.prefix { $0 != ";" }, radix: 16) else {
                    throw Failure(description: "bad chunk size \(size.debugDescription)")
                }
                body += try take(count: count)
                _ = try take(through: Array("\r\n".utf8))
                if count == 0 { break }
            }
        } else {
            throw Failure(description: "a response without a length: \(head.debugDescription)")
        }
        if headers["connection"]?.lowercased() == "close" { disconnect() }
        return Answer(status: status, body: String(decoding: body, as: UTF8.self))
    }
}

/// Runs `body` on a new thread (blocking calls stay off Swift's cooperative pool) and returns its result.
func onAThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
