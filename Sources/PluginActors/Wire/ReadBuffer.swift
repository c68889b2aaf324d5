import Glibc

/// What a connection's reader has read and not yet handled: `bytes[start..<filled]`, frames in order.
/// It holds ``size`` bytes, or the size of a larger frame while that one comes in (up to
/// ``Frame/maximumBody``); such a frame is handed on as it is (``keep(_:)``), not copied, and the
/// reader goes on with a buffer of ``size`` again.
struct ReadBuffer {
    /// The buffer's size, but while a larger frame comes in.
    static let size = 64 * 1024

    private(set) var bytes = [UInt8](repeating: 0, count: size)
    /// Where the bytes not yet handled begin and end.
    private var start = 0
    private var filled = 0

    /// How many bytes were read and not yet handled.
    var unhandled: Int { filled - start }

    /// Reads what the socket has, waiting at most `timeout`: the count read, 0 at the end of the
    /// stream, nil if nothing came.
    mutating func read(from socket: Int32, waiting timeout: Duration) throws(SocketIO.Broken) -> Int? {
        let count = try SocketIO.read(socket, into: &bytes, at: filled, waiting: timeout)
        filled += count ?? 0
        return count
    }

    /// The first `count` unhandled bytes (a frame's header), left unhandled.
    func peek(_ count: Int) -> ArraySlice<UInt8> {
        bytes[start..<(start + count)]
    }

    /// Marks the next `count` bytes (at most ``unhandled``) handled; returns where they lie in
    /// ``bytes``, until the next ``keep(_:)`` or ``compact(sizedFor:)``.
    mutating func take(_ count: Int) -> Range<Int> {
        defer { start += count }
        return start..<(start + count)
    }

    /// The bytes at `range` (taken), for a task or a caller to keep once the reader moves on: a
    /// copy, unless they are more than ``size`` (the buffer was grown for their frame): then the
    /// buffer itself, replaced here by a new one holding the unhandled bytes. Replaced, not written
    /// to: the kept slice is the old buffer's only owner, and no later write copies it.
    mutating func keep(_ range: Range<Int>) -> ArraySlice<UInt8> {
        guard range.count > Self.size else { return ArraySlice(Array(bytes[range])) }
        let kept = bytes[range]
        bytes = copy(of: start..<filled, size: max(Self.size, unhandled))
        filled = unhandled
        start = 0
        return kept
    }

    /// Moves the unhandled bytes to the front and sizes the buffer for `needed` bytes (at least as
    /// many as are unhandled): the frame that comes next, or ``size``.
    mutating func compact(sizedFor needed: Int) {
        if start > 0 {
            bytes.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                memmove(base, base + start, filled - start)
            }
            filled -= start
            start = 0
        }
        if needed > bytes.count {
            // One fill and one copy (appending `repeatElement` zeros went a byte at a time).
            bytes = copy(of: 0..<filled, size: needed)
        } else if bytes.count > needed {
            bytes = Array(bytes[..<needed])
        }
    }

    /// A new buffer of `size` bytes beginning with `bytes[range]`.
    private func copy(of range: Range<Int>, size: Int) -> [UInt8] {
        var copy = [UInt8](repeating: 0, count: size)
        copy.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
        return copy
    }
}
