import Glibc
import SharedMailbox

/// The call case's second floor: the same bytes as the socket's floor, through shared memory instead
/// (issue 43, item 2: what a shared-memory transport could reach). One memfd, mapped by both processes,
/// holds two mailboxes (calls, replies); each side copies a message in, wakes the other through a
/// futex if it sleeps, and copies the answer out (the host must: the other process writes that memory).
/// `spins`: how long a waiting side spins on the mailbox before it sleeps (0: it sleeps at once).
final class SharedMemoryFloor {
    /// The most bytes of one message (the captured frames are a few hundred).
    static let capacity = 64 * 1024
    /// The descriptor the peer finds the memory on (its socket is 3).
    static let descriptor: Int32 = 4
    static var mailboxSize: Int { shared_mailbox_size(capacity) }

    let peer: PeerProcess
    private let memory: UnsafeMutableRawPointer
    private let spins: Int32
    private var seen: UInt32 = 0

    init(_ frames: CapturedFrames, spins: Int32) {
        let size = 2 * Self.mailboxSize
        let fd = shared_mailbox_create(size)
        guard fd >= 0, let memory = shared_mailbox_map(fd, size) else {
            fail("shared-memory floor: memfd: \(String(cString: strerror(errno)))")
        }
        self.memory = memory
        self.spins = spins
        peer = PeerProcess.start("shared-floor", [PeerRoles.hex(frames.reply), "\(spins)"], sharing: fd)
        close(fd)
    }

    var calls: UnsafeMutableRawPointer { memory }
    var replies: UnsafeMutableRawPointer { memory + Self.mailboxSize }

    /// Posts `call` and waits for the reply, copied into `reply` (sized for it).
    func roundTrip(_ call: [UInt8], into reply: inout [UInt8]) {
        call.withUnsafeBytes { shared_mailbox_post(calls, $0.baseAddress, UInt32($0.count)) }
        let count = reply.withUnsafeMutableBytes { out in
            shared_mailbox_take(replies, &seen, out.baseAddress, UInt32(out.count), spins)
        }
        guard count == reply.count else { fail("shared-memory floor: a reply of \(count) bytes") }
    }

    /// Tells the peer to end (an empty message), then reaps it.
    func finish() {
        shared_mailbox_post(calls, nil, 0)
        peer.finish()
        munmap(memory, 2 * Self.mailboxSize)
    }

    /// The peer's side: answers every call with `reply` until an empty message comes; never returns.
    static func serve(reply: [UInt8], spins: Int32) -> Never {
        let size = 2 * mailboxSize
        guard let memory = shared_mailbox_map(descriptor, size) else {
            fail("peer shared-floor: mmap: \(String(cString: strerror(errno)))")
        }
        var seen: UInt32 = 0
        var call = [UInt8](repeating: 0, count: capacity)
        while true {
            let count = call.withUnsafeMutableBytes { out in
                shared_mailbox_take(memory, &seen, out.baseAddress, UInt32(out.count), spins)
            }
            if count == 0 { exit(0) }
            reply.withUnsafeBytes { shared_mailbox_post(memory + mailboxSize, $0.baseAddress, UInt32($0.count)) }
        }
    }
}
