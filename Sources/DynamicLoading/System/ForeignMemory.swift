
/// Reads memory a plugin points the host at without dereferencing it: the kernel copies the bytes
/// (a `write` from there into a pipe, then a `read` back), so an address the process cannot read
/// yields fewer bytes, or none, never a signal.
///
/// Invariant: ``bytes(at:count:)`` only hands the address to `write(2)`, which checks it, and never
/// loads from it. At most 4096 bytes per call (PIPE_BUF: written whole or up to the first unreadable
/// byte, and well under an empty pipe's capacity, so the write cannot block), and every byte written
/// is read back before the lock is let go, so the one pipe of the process is empty between calls.
/// ``cString(at:maximumLength:)`` loads directly, but only from pages whose first byte the kernel
/// could read (readability is a property of a whole page), and never past the NUL: a string is read
/// without touching the bytes after it, which may belong to nobody (AddressSanitizer checks the
/// whole range given to `write`).
package enum ForeignMemory {
    /// The most bytes one call copies.
    static let maximumCount = 4096

    /// One pipe for the process, made on first use and used under the lock: a pipe per read cost two
    /// file descriptors and four more system calls each time (a header read makes a dozen reads).
    /// Close-on-exec, so the probe children never inherit it.
    private static let channel = Lock<(read: Int32, write: Int32)?>(try? Posix.pipe())

    /// The readable prefix of the `count` bytes at `address` (all of them, unless the range runs into
    /// memory the process cannot read). Empty if the first byte is unreadable or no pipe can be made.
    package static func bytes(at address: UnsafeRawPointer, count: Int) -> [UInt8] {
        let count = min(count, maximumCount)
        guard count > 0 else { return [] }
        return channel.withLock { ends in
            guard let ends else { return [] }
            // EFAULT for an unreadable first byte; a shorter count where the range becomes unreadable.
            guard let written = try? Posix.write(ends.write, from: address, count: count), written > 0 else { return [] }
            var copy = [UInt8](repeating: 0, count: written)
            var got = 0
            while got < written {
                let step = copy.withUnsafeMutableBytes { buffer in
                    (try? Posix.read(ends.read, into: UnsafeMutableRawBufferPointer(rebasing: buffer[got...]))) ?? -1
                }
                guard step > 0 else { return [] }
                got += step
            }
            return copy
        }
    }

    /// The bytes of the NUL-terminated string at `address`, without the NUL, or `nil` if a page it
    /// runs into is unreadable or no NUL comes within `maximumLength` bytes.
    package static func cString(at address: UnsafeRawPointer, maximumLength: Int) -> [UInt8]? {
        let page = Posix.pageSize
        var result: [UInt8] = []
        var cursor = address
        while result.count <= maximumLength {
            guard bytes(at: cursor, count: 1).count == 1 else { return nil }
            let pageEnd = (UInt(bitPattern: cursor) / UInt(page) + 1) * UInt(page)
            let readable = Int(pageEnd - UInt(bitPattern: cursor))
            for offset in 0..<min(readable, maximumLength + 1 - result.count) {
                // Within the page whose first byte `write` could read (so all of it can be), before the NUL.
                let byte = cursor.load(fromByteOffset: offset, as: UInt8.self)
                if byte == 0 { return result }
                result.append(byte)
            }
            cursor += readable
        }
        return nil
    }
}
