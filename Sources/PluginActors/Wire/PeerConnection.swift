import Distributed
import Glibc

/// One connection between this process and another over a Unix stream socket: the calls this side
/// made and waits for, and the calls the other side made and this side serves.
///
/// Invariants (the only unsafe things here are the socket and the reader thread):
/// - The connection's ``Outbox`` owns `socket`, a duplicate of the descriptor it was given, and
///   writes every frame; the reader thread reads it until it ends, and then closes the outbox.
/// - Every call this side made is in `pending` from before its frame is written until one of: its
///   reply, its timeout, its cancellation, the connection's end, or (for a call whose frame was being
///   written at the end, or could not be written) its sender resumes it. Each is resumed once:
///   whoever removes it from `pending` under the lock resumes it. A call that could not be written
///   fails with ``NotDelivered``: nothing of it ran.
/// - The connection ends once: `onEnd` runs once, under `endBegun` (anyone else ending it waits
///   for it), before `ended` is set under the lock; every call pending then fails with why, and
///   every later call at once.
final class PeerConnection: Sendable {
    enum Reply {
        case value(ArraySlice<UInt8>)
        case void
        case failure(Frame.Failure?)
    }

    fileprivate struct Pending {
        /// Nil between the call's registration and its continuation's: a cancellation then only marks it.
        var continuation: CheckedContinuation<Reply, any Error>?
        var cancelled = false
        /// While its frame is being written: the end leaves it to its sender, who alone knows whether
        /// it went out (it failed as in flight, or was never sent).
        var sending = false
        let deadline: ContinuousClock.Instant
        let timeout: Duration
        let target: String
    }

    enum Serving {
        case starting
        case running(Task<Void, Never>)
    }

    struct State {
        var nextCall: UInt64 = 1
        fileprivate var pending: [UInt64: Pending] = [:]
        var serving: [UInt64: Serving] = [:]
        var ended: PluginActorError?
        /// The targets found to be methods of a contract, by the contract's stub.
        var checkedTargets: [ObjectIdentifier: Set<String>] = [:]
        /// Why this side closed the connection, if it did: the reason the end reports.
        var closing: PluginActorError?
        /// Set when a write found the other process gone: the reader asks `endReason` once it stops
        /// (which, in a host, reaps the process, or kills one that closed its socket and lives on).
        var goneWhileWriting = false
    }

    /// The other process, as the system names it: its name changes once at most, when a process
    /// connected ahead under a name of its own takes the place of another (``rename(to:)``).
    var peer: String { name.withLock { $0 } }
    private let name: Lock<String>
    let callTimeout: Duration
    let socket: Int32
    let state = Lock(State())
    /// Whether the connection's end began: held while the first to end it tells its system.
    private let endBegun = Lock(false)
    /// Writes every frame, on a thread of its own when the socket is full; owns the socket.
    let outbox: Outbox
    let system: PluginActorSystem
    let serve: @Sendable (String) async throws -> PluginActorSystem.Served
    private let endReason: @Sendable () -> String
    /// Hears of each call this side makes when it ends: its service, its method, `answered`, `threw`
    /// or `failed`, and how long it took (``PluginActorSystem/connect(peer:socket:callTimeout:serve:endReason:callEnded:)``).
    let callEnded: (@Sendable (String, String, String, Duration) -> Void)?
    private let onEnd: @Sendable (PeerConnection, PluginActorError, _ processGone: Bool) -> Void
    /// The services whose calls go on to the other process's successor while calls to others wait
    /// for it to serve, if a call made after the other process ended waits for its successor
    /// (``PluginActorSystem/connect(peer:socket:callTimeout:serve:endReason:callEnded:callsWaitForSuccessor:)``).
    let callsWaitForSuccessor: Set<String>?

    /// How often the reader looks for calls past their deadline: a call times out at most this late.
    static let timeoutTick: Duration = .milliseconds(50)
    /// The most calls of the other process served at once; one more ends the connection (a flood).
    static let maximumServing = 256

    init(peer: String, socket: Int32, callTimeout: Duration, system: PluginActorSystem,
         serve: @escaping @Sendable (String) async throws -> PluginActorSystem.Served,
         endReason: @escaping @Sendable () -> String,
         callEnded: (@Sendable (String, String, String, Duration) -> Void)? = nil,
         callsWaitForSuccessor: Set<String>? = nil,
         onEnd: @escaping @Sendable (PeerConnection, PluginActorError, _ processGone: Bool) -> Void) {
        self.callEnded = callEnded
        self.callsWaitForSuccessor = callsWaitForSuccessor
        name = Lock(peer)
        self.socket = socket
        self.callTimeout = callTimeout
        self.system = system
        self.serve = serve
        self.endReason = endReason
        self.onEnd = onEnd
        // A peer that takes no byte for a whole call timeout stopped reading: the connection ends.
        outbox = Outbox(socket: socket, stall: callTimeout)
    }

    /// Starts the reader and writer threads; false if they could not be started (then the
    /// connection is ended).
    func start() -> Bool {
        let writer = outbox.start { [weak self] broken in self?.endBroken(broken) }
        if writer, DetachedThread.start({ self.readUntilEnd() }) { return true }
        end(.unavailable(peer: peer, reason: "no thread could be started to read and write its connection"))
        outbox.close()
        return false
    }

    /// Names the other process `peer` from now on (its system does, under its peers' lock).
    func rename(to peer: String) {
        name.withLock { $0 = peer }
    }

    /// True once the connection ended.
    var isEnded: Bool { state.withLock { $0.ended != nil } }

    /// The calls this side made that wait for an answer.
    var pendingCalls: Int { state.withLock { $0.pending.count } }

    // MARK: Calls this side makes

    /// What a call fails with when it was never sent, because the connection ended or broke before
    /// it went out: nothing of it ran, so it may be sent to the process that takes this one's place.
    struct NotDelivered: Error {
        let reason: PluginActorError
    }

    /// Sends a call to the service `name`, with `headers` (``PluginCallContext``, checked by the
    /// caller), and waits for its reply, at most `timeout` (nil: ``callTimeout``).
    /// Throws ``NotDelivered`` if the call was never sent.
    func call(name: String, target: String, arguments: [UInt8], headers: [String: String] = [:],
              timeout: Duration? = nil) async throws -> Reply {
        let timeout = timeout ?? callTimeout
        let deadline = ContinuousClock.now + timeout
        let id = try state.withLock { state throws(NotDelivered) -> UInt64 in
            if let ended = state.ended { throw NotDelivered(reason: ended) }
            defer { state.nextCall += 1 }
            state.pending[state.nextCall] = Pending(deadline: deadline, timeout: timeout, target: target)
            return state.nextCall
        }
        let frame = Frame.parts(headers.isEmpty ? .call : .callWithHeaders, call: id,
                                headSize: name.utf8.count + target.utf8.count + 4, tail: arguments) { bytes in
            bytes.appendShortText(name)
            bytes.appendShortText(target)
            if !headers.isEmpty {
                bytes.appendLittleEndian(UInt16(headers.count))
                for (header, value) in headers.sorted(by: { $0.key < $1.key }) {
                    bytes.appendShortText(header)
                    bytes.appendShortText(value)
                }
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
                let refusal = state.withLock { state -> (any Error)? in
                    guard var call = state.pending[id] else { return state.ended.map(NotDelivered.init) ?? CancellationError() }
                    if call.cancelled {
                        state.pending[id] = nil
                        return CancellationError()
                    }
                    call.continuation = continuation
                    call.sending = true
                    state.pending[id] = call
                    return nil
                }
                if let refusal {
                    continuation.resume(throwing: refusal)
                    return
                }
                let broken = outbox.send(parts: frame)
                let (sender, error) = state.withLock { state -> (CheckedContinuation<Reply, any Error>?, (any Error)?) in
                    // Answered, cancelled or timed out already: that is its end.
                    guard var call = state.pending[id] else { return (nil, nil) }
                    if broken != nil || state.ended != nil { state.pending[id] = nil }
                    if broken != nil { return (call.continuation, nil) }
                    // Sent, and the connection ended meanwhile: it fails as a call in flight.
                    if let ended = state.ended { return (call.continuation, ended) }
                    call.sending = false
                    state.pending[id] = call
                    return (nil, nil)
                }
                if let broken {
                    // Never sent: nothing of it ran.
                    sender?.resume(throwing: NotDelivered(reason: endBroken(broken)))
                } else if let error {
                    sender?.resume(throwing: error)
                }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Fails the call `id` with `CancellationError` and tells the other side, which cancels the task
    /// that serves it.
    private func cancel(_ id: UInt64) {
        let continuation = state.withLock { state -> CheckedContinuation<Reply, any Error>? in
            guard var call = state.pending[id] else { return nil }
            guard let continuation = call.continuation else {
                call.cancelled = true
                state.pending[id] = call
                return nil
            }
            state.pending[id] = nil
            return continuation
        }
        guard let continuation else { return }
        continuation.resume(throwing: CancellationError())
        _ = outbox.send(Frame.bytes(.cancel, call: id))
    }

    // MARK: The reader

    private func readUntilEnd() {
        var buffer = ReadBuffer()
        var nextExpiry = ContinuousClock.now + Self.timeoutTick
        while !isEnded {
            let count: Int?
            do {
                count = try buffer.read(from: socket, waiting: Self.timeoutTick)
            } catch {
                endAtTheOtherSide { "\(error); \(self.endReason())" }
                break
            }
            if count == 0 {
                endAtTheOtherSide(reason: endReason)
                break
            }
            if let violation = dispatchFrames(in: &buffer) {
                let error = PluginActorError.invalidMessage(peer: peer, reason: violation)
                state.withLock { $0.closing = $0.closing ?? error }
                outbox.shutDown(SocketIO.Broken(description: violation))
                end(error)
                break
            }
            if ContinuousClock.now >= nextExpiry {
                expireCalls()
                nextExpiry = .now + Self.timeoutTick
            }
        }
        if state.withLock({ $0.goneWhileWriting }) { _ = endReason() }
        outbox.close()
    }

    /// Handles every whole frame `buffer` holds, then sizes it for the frame that comes next: grown
    /// if that one is larger, back to ``ReadBuffer/size`` once no larger one is coming in. Returns
    /// how the other side broke the protocol, if it did.
    private func dispatchFrames(in buffer: inout ReadBuffer) -> String? {
        // The room the frame that comes next needs (what is left of it is never more).
        var needed = ReadBuffer.size
        defer { buffer.compact(sizedFor: needed) }
        while buffer.unhandled >= Frame.headerSize {
            var header = FrameReader(buffer.peek(Frame.headerSize))
            guard let length = try? Int(header.integer(UInt32.self)), let rawKind = try? header.integer(UInt8.self),
                  let call = try? header.integer(UInt64.self) else { return "a frame's header is cut short" }
            guard length >= 9, length - 9 <= Frame.maximumBody else { return "a frame announces \(length) bytes" }
            guard let kind = Frame.Kind(rawValue: rawKind) else { return "a frame of unknown kind \(rawKind)" }
            guard buffer.unhandled >= 4 + length else {
                needed = max(needed, 4 + length)
                break
            }
            let frame = buffer.take(4 + length)
            let body = (frame.lowerBound + Frame.headerSize)..<frame.upperBound
            switch kind {
            case .call, .callWithHeaders:
                // A peer that keeps more calls in flight than any caller needs is flooding this side.
                let (flooding, reused) = state.withLock { ($0.serving.count >= Self.maximumServing, $0.serving[call] != nil) }
                if flooding { return "it sent more than \(Self.maximumServing) calls at once" }
                // Its replies and cancellations could not say which of the two they mean.
                if reused { return "it sent call \(call) again while that call was served" }
                startServing(call, body: buffer.keep(body), withHeaders: kind == .callWithHeaders)
            case .cancel: cancelServing(call)
            case .value: finish(call, with: .value(buffer.keep(body)))
            case .void: finish(call, with: .void)
            case .failure: finish(call, with: .failure(try? WireFormat.decode(Frame.Failure.self, from: buffer.bytes[body])))
            }
        }
        return nil
    }

    /// Resumes the pending call `id` with its reply (bytes the reply keeps); a reply to a call given up is dropped.
    private func finish(_ id: UInt64, with reply: Reply) {
        let continuation = state.withLock { state -> CheckedContinuation<Reply, any Error>? in
            guard let continuation = state.pending[id]?.continuation else { return nil }
            state.pending[id] = nil
            return continuation
        }
        continuation?.resume(returning: reply)
    }

    /// Fails the calls past their deadline, and tells the other side to give them up.
    private func expireCalls() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [(UInt64, Pending)] in
            let expired = state.pending.filter { $0.value.continuation != nil && $0.value.deadline <= now }
            for (id, _) in expired { state.pending[id] = nil }
            return Array(expired)
        }
        for (id, call) in expired {
            call.continuation?.resume(throwing: PluginActorError.timedOut(peer: peer, target: TargetName.readable(call.target),
                                                                          after: call.timeout))
            _ = outbox.send(Frame.bytes(.cancel, call: id))
        }
    }

    // MARK: Writing and ending

    /// Closes the connection from this side: pending and later calls fail with `reason`.
    func close(_ reason: PluginActorError) {
        state.withLock { $0.closing = $0.closing ?? reason }
        // Wakes the reader, which then ends the connection and closes the socket.
        outbox.shutDown(SocketIO.Broken(description: "\(reason)"))
        end(reason)
    }

    /// Ends the connection because writing to its socket failed; returns why it ended.
    @discardableResult
    private func endBroken(_ broken: SocketIO.Broken) -> PluginActorError {
        if let closing = state.withLock({ $0.closing }) {
            end(closing)
            return closing
        }
        let reason = PluginActorError.processEnded(peer: peer, reason: broken.description)
        if broken.peerGone { state.withLock { $0.goneWhileWriting = true } }
        end(reason, processGone: broken.peerGone)
        return reason
    }

    /// Ends the connection because the other side closed it or the socket failed: unless this side
    /// closed it first, the other process ended (`reason`, the host's word, is asked only then: it
    /// reaps the process, killing it if it lives on).
    private func endAtTheOtherSide(reason: () -> String) {
        if let closing = state.withLock({ $0.closing }) {
            end(closing)
        } else {
            end(.processEnded(peer: peer, reason: reason()), processGone: true)
        }
    }

    /// Ends the connection once: `onEnd` hears first, before a call can find it ended, so a caller
    /// that finds it so (or sees its call fail) finds the peer's new state; then every pending call
    /// fails with `reason`. `processGone`: the other process ended (not this side's close, a broken
    /// protocol or a stalled writer).
    private func end(_ reason: PluginActorError, processGone: Bool = false) {
        // Held while the first tells the system: another who ends it (a caller whose write failed)
        // returns only after that, and finds the peer's new state (held, or down), not this connection.
        let first = endBegun.withLock { begun -> Bool in
            guard !begun else { return false }
            begun = true
            onEnd(self, reason, processGone)
            return true
        }
        guard first else { return }
        let taken = state.withLock { state -> (pending: [Pending], serving: [Serving]) in
            state.ended = reason
            defer {
                // A call being written stays for its sender (see `Pending.sending`).
                state.pending = state.pending.filter(\.value.sending)
                state.serving = [:]
            }
            return (state.pending.values.filter { !$0.sending }, Array(state.serving.values))
        }
        for call in taken.pending { call.continuation?.resume(throwing: reason) }
        for case let .running(task) in taken.serving { task.cancel() }
    }
}
