import Glibc

/// Reads memory a plugin points the host at without dereferencing it: the kernel copies the bytes
/// (a `write` from there into a pipe, then a `read` back), so an address the process cannot read
/// yields fewer bytes, or none, never a signal.
///
/// Invariant: the address is only ever handed to `write(2)`, which checks it; this type never loads
/// from it. At most 4096 bytes per call, well under an empty pipe's capacity, so the write cannot block.
enum ForeignMemory {
    /// The most bytes one call copies.
    static let maximumCount = 4096

    /// The readable prefix of the `count` bytes at `address` (all of them, unless the range runs into
    /// memory the process cannot read). Empty if the first byte is unreadable or no pipe can be made.
    static func bytes(at address: UnsafeRawPointer, count: Int) -> [UInt8] {
        let count = min(count, maximumCount)
        guard count > 0 else { return [] }
        var ends: [Int32] = [-1, -1]
        // (Glibc's module lacks pipe2; the ends are closed before this returns, and a child forked
        // meanwhile only holds a pipe nobody waits on.)
        guard pipe(&ends) == 0 else { return [] }
        defer {
            close(ends[0])
            close(ends[1])
        }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        // EFAULT for an unreadable first byte; a shorter count where the range becomes unreadable.
        let written = write(ends[1], address, count)
        guard written > 0 else { return [] }
        var copy = [UInt8](repeating: 0, count: written)
        let got = copy.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, written) }
        return got == written ? copy : []
    }
}
