import Glibc

/// The frames one connection sends, written whole and in order, and never by blocking the thread
/// that sends one: a frame goes out at once if the socket has room and nothing waits before it;
/// otherwise it waits here, and the connection's writer thread writes it as the other process
/// reads. A peer that stops reading therefore costs its callers their calls' timeouts, never a
/// thread (before, each call to a stalled peer held a thread of Swift concurrency in `poll`).
///
/// The outbox owns the connection's socket. Invariants:
/// - Only the holder of the socket (`State.holder`, taken under the lock) writes to it: the thread
///   sending a frame at once, or the writer thread. What the holder could not write goes back to
///   the front of `waiting`, so frames never interleave.
/// - The socket is shut down or closed only under the lock; it is closed once, when the outbox is
///   closed and no one holds it, so no write and no shutdown ever reaches a reused descriptor.
/// - The reader thread reads the socket until it calls ``close()``; nothing closes it before.
final class Outbox: Sendable {
    private struct State {
        /// What waits to be written, in order: the parts of whole frames (at the front, perhaps what
        /// is left of one), each a slice of the part as it was sent (the writer joins small ones).
        var waiting: [ArraySlice<UInt8>] = []
        /// How many bytes `waiting` holds.
        var waitingCount = 0
        var holder = false
        /// Set once the socket is broken or closed: every later frame is refused with it.
        var broken: SocketIO.Broken?
        var closed = false
        var socketClosed = false
    }

    private let socket: Int32
    private let state = Lock(State())
    /// How long the writer waits for the other process to take a byte before it gives up on it.
    private let stall: Duration

    /// The most bytes that may wait for a peer that does not read: more ends the connection.
    static let maximumWaiting = 2 * Frame.maximumBody
    /// The most bytes of small frames the writer joins into one write.
    static let joinedUpTo = 256 * 1024

    /// An outbox for `socket`, which it owns from now on; its writer gives up on a peer that takes
    /// no byte for `stall`.
    init(socket: Int32, stall: Duration) {
        self.socket = socket
        self.stall = stall
    }

    /// Starts the writer thread; false if none could be started. `onBroken` runs once if the
    /// writer finds the socket broken or the peer stalled: the connection then ends.
    func start(onBroken: @escaping @Sendable (SocketIO.Broken) -> Void) -> Bool {
        DetachedThread.start { self.writeUntilClosed(onBroken) }
    }

    /// Sends `frame`: written now if it can be, else after what waits. Returns why the connection
    /// is broken if it is (the caller ends it); never blocks for the other process.
    func send(_ frame: [UInt8]) -> SocketIO.Broken? {
        send(parts: [frame[...]])
    }

    /// Sends the frame made of `parts` (``Frame/parts(_:call:headSize:tail:head:)``), written one
    /// after another as ``send(_:)`` writes a frame.
    func send(parts: [ArraySlice<UInt8>]) -> SocketIO.Broken? {
        enum Next { case write, queued, refused(SocketIO.Broken) }
        let size = parts.reduce(0) { $0 + $1.count }
        let next = state.withLock { state -> Next in
            if let broken = state.broken { return .refused(broken) }
            guard !state.holder, state.waiting.isEmpty else {
                guard state.waitingCount + size <= Self.maximumWaiting else {
                    let broken = SocketIO.Broken(description: "more than \(Self.maximumWaiting) bytes wait for the other "
                                                 + "process (it stopped reading)")
                    breakSocket(&state, broken)
                    return .refused(broken)
                }
                state.waiting += parts
                state.waitingCount += size
                return .queued
            }
            state.holder = true
            return .write
        }
        switch next {
        case let .refused(broken): return broken
        case .queued: return nil
        case .write: break
        }
        var rest = parts[...]
        do throws(SocketIO.Broken) {
            // Part by part while the socket takes them whole; what it did not take waits, as it is.
            while let part = rest.first {
                let written = try SocketIO.writeNow(part, from: 0, to: socket)
                rest[rest.startIndex] = part.dropFirst(written)
                guard written == part.count else { break }
                rest.removeFirst()
            }
        } catch {
            release { state in breakSocket(&state, error) }
            return error
        }
        release { state in
            // Broken meanwhile (by a shutdown): nothing more is written, and nothing waits.
            guard !rest.isEmpty, state.broken == nil else { return }
            state.waiting.insert(contentsOf: rest, at: 0)
            state.waitingCount += rest.reduce(0) { $0 + $1.count }
        }
        return nil
    }

    /// How many bytes of frames wait to be written.
    var waitingCount: Int { state.withLock { $0.waitingCount } }

    /// Shuts the socket down (both ways) unless it is closed: a blocked reader and writer wake, and
    /// every later frame is refused.
    func shutDown(_ reason: SocketIO.Broken) {
        state.withLock { state in breakSocket(&state, reason) }
        state.wakeWaiters()
    }

    /// The reader is done with the socket: it is closed as soon as no one writes to it, and the
    /// writer thread ends.
    func close() {
        state.withLock { state in
            state.closed = true
            if state.broken == nil { state.broken = SocketIO.Broken(description: "the connection is closed") }
            if state.holder {
                // The holder wakes (its writes fail) and closes the socket as it lets go of it.
                shutdown(socket, Int32(SHUT_RDWR))
            } else {
                closeSocket(&state)
            }
        }
        state.wakeWaiters()
    }

    // MARK: The writer

    private func writeUntilClosed(_ onBroken: (SocketIO.Broken) -> Void) {
        while true {
            let batch = state.withLock(when: { $0.closed || $0.broken != nil || (!$0.holder && !$0.waiting.isEmpty) }) { state -> [ArraySlice<UInt8>]? in
                guard !state.closed, state.broken == nil else { return nil }
                state.holder = true
                defer {
                    state.waiting = []
                    state.waitingCount = 0
                }
                return state.waiting
            }
            guard let batch else { return }
            do throws(SocketIO.Broken) {
                try writeJoiningSmallOnes(batch)
                release { _ in }
            } catch {
                release { state in breakSocket(&state, error) }
                onBroken(error)
                return
            }
        }
    }

    /// Writes `parts` in order, each run of small ones joined into one write of at most
    /// ``joinedUpTo`` bytes (many frames at once, as they queue up when calls are many), large ones
    /// as they are: what is joined is never more than that, beside the parts themselves.
    private func writeJoiningSmallOnes(_ parts: [ArraySlice<UInt8>]) throws(SocketIO.Broken) {
        guard parts.count > 1 else {
            if let part = parts.first { try SocketIO.writeAll(part, to: socket, stalledAfter: stall) }
            return
        }
        var run: [UInt8] = []
        for part in parts {
            let large = part.count > Frame.tailCopiedUpTo
            if !run.isEmpty, large || run.count + part.count > Self.joinedUpTo {
                try SocketIO.writeAll(run[...], to: socket, stalledAfter: stall)
                run.removeAll(keepingCapacity: true)
            }
            if large {
                try SocketIO.writeAll(part, to: socket, stalledAfter: stall)
            } else {
                run += part
            }
        }
        if !run.isEmpty { try SocketIO.writeAll(run[...], to: socket, stalledAfter: stall) }
    }

    // MARK: Holding the socket

    /// Lets go of the socket after `update`: closes it if the outbox was closed meanwhile, and
    /// wakes the writer only if it has something to do now (frames wait, or the socket broke or
    /// closed): waking it for nothing after every frame sent at once cost each call two thread
    /// switches (it woke, found nothing, and slept again).
    private func release(_ update: (inout State) -> Void) {
        let writerHasWork = state.withLock { state -> Bool in
            update(&state)
            state.holder = false
            if state.closed { closeSocket(&state) }
            return state.closed || state.broken != nil || !state.waiting.isEmpty
        }
        if writerHasWork { state.wakeWaiters() }
    }

    /// Marks the socket broken and shuts it down, the lock held: no frame may follow one written in part.
    private func breakSocket(_ state: inout State, _ broken: SocketIO.Broken) {
        if state.broken == nil { state.broken = broken }
        // Never written now: the frames' bytes (a caller's large argument) are let go at once.
        state.waiting = []
        state.waitingCount = 0
        if !state.socketClosed { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Closes the socket once, the lock held and no holder.
    private func closeSocket(_ state: inout State) {
        guard !state.socketClosed else { return }
        state.socketClosed = true
        Glibc.close(socket)
    }
}
