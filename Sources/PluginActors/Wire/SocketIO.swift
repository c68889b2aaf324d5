import Glibc

/// The system calls a connection makes on its socket: writes that never raise SIGPIPE (at once, or
/// waiting for room up to a bound), reads, and waiting for either.
enum SocketIO {
    /// Why the socket can no longer be used.
    struct Broken: Error, CustomStringConvertible {
        let description: String
        /// The other side is gone (it closed the socket, or its process ended), not merely slow or shut out.
        var peerGone = false
    }

    /// Writes what of `bytes` past its first `offset` the socket takes now, without waiting; returns how many
    /// bytes it took (0: it is full). `MSG_NOSIGNAL`: a peer that is gone is an error here, not a
    /// SIGPIPE that ends this process. Throws if the peer is gone.
    static func writeNow(_ bytes: ArraySlice<UInt8>, from offset: Int, to socket: Int32) throws(Broken) -> Int {
        var written = offset
        while written < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(socket, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if sent > 0 {
                written += sent
                continue
            }
            let error = errno
            if sent < 0 && error == EINTR { continue }
            if sent < 0 && (error == EAGAIN || error == EWOULDBLOCK) { break }
            throw Broken(description: "writing to the socket failed: \(String(cString: strerror(error)))",
                         peerGone: error == EPIPE || error == ECONNRESET)
        }
        return written - offset
    }

    /// Writes all of `bytes`, waiting for room as long as it takes, unless the peer takes no byte
    /// for `stall` (it stopped reading): then it throws, as it does if the peer is gone. Either
    /// way the stream is then no longer framed.
    static func writeAll(_ bytes: ArraySlice<UInt8>, to socket: Int32, stalledAfter stall: Duration) throws(Broken) {
        var offset = 0
        while offset < bytes.count {
            let written = try writeNow(bytes, from: offset, to: socket)
            offset += written
            guard offset < bytes.count, written == 0 else { continue }
            guard wait(socket, for: Int16(POLLOUT), upTo: stall) else {
                throw Broken(description: "the other process took no bytes for \(stall) (it stopped reading)")
            }
        }
    }

    /// Reads what is there into `buffer` from `offset` on (at most to its end), waiting at most
    /// `timeout` (nil: until something comes). Returns the count read: 0 at end of stream; nil if
    /// the wait timed out.
    static func read(_ socket: Int32, into buffer: inout [UInt8], at offset: Int, waiting timeout: Duration?) throws(Broken) -> Int? {
        if !wait(socket, for: Int16(POLLIN), upTo: timeout) { return nil }
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                recv(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_DONTWAIT))
            }
            if count >= 0 { return count }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK { return nil }
            throw Broken(description: "reading from the socket failed: \(String(cString: strerror(error)))")
        }
    }

    /// True once `socket` is ready for `events` (or hung up, or in error), false after `timeout`
    /// (nil: no limit).
    private static func wait(_ socket: Int32, for events: Int16, upTo timeout: Duration?) -> Bool {
        var entry = pollfd(fd: socket, events: events, revents: 0)
        let milliseconds = timeout.map { timeout in
            // Clamped before it is multiplied: a timeout of "forever" must not overflow.
            let (seconds, attoseconds) = timeout.components
            return Int32(clamping: min(max(seconds, 0), 86_400 * 365) * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
        } ?? Int32(-1)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }

    /// A close-on-exec duplicate of `socket`, for a connection to own; nil if none could be made.
    static func duplicate(_ socket: Int32) -> Int32? {
        let copy = fcntl(socket, F_DUPFD_CLOEXEC, 0)
        return copy < 0 ? nil : copy
    }
}
