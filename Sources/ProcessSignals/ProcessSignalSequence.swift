/// The signals the process gets, as an `AsyncSequence` of their numbers (`SIGHUP`, `SIGTERM`...).
///
/// ```swift
/// let signals = ProcessSignalSequence(trapping: SIGHUP, SIGUSR1)
/// for await signal in signals {
///     if signal == SIGHUP { reloadConfiguration() }
/// }
/// ```
///
/// - The signals are trapped from the moment `init` returns: their handlers are installed with
///   `sigaction` before it does. A signal that comes before anyone iterates is kept, and the
///   iteration yields it first: every signal that comes is yielded, in the order they came. (Two of
///   the same signal sent at once may reach the process as one: the kernel keeps one pending signal
///   of a kind, not a count.)
/// - Iterate a sequence from one task at a time, as an `AsyncStream`. Several sequences may trap one
///   signal: each of them yields it. HostKit's `ShutdownSignals` and `ReloadSignals` share the same
///   relay, so they may watch a signal a sequence traps, and each hears it.
/// - The iteration never ends by itself. It ends (`next()` returns nil) when the task iterating it
///   is cancelled; the sequence then traps no more, as when it and its iterator have gone away:
///   a signal that nothing else traps gets back the action it had before.
/// - While a sequence traps a signal, the signal's former action never runs (SIGHUP's, SIGINT's and
///   SIGTERM's end the process): not even for a second SIGINT after a `ShutdownSignals`' shutdown.
public struct ProcessSignalSequence: AsyncSequence, Sendable {
    /// A signal's number, as `SIGHUP` is.
    public typealias Element = Int32

    private let trap: Trap

    /// Traps `signals` until the sequence and its iterator are gone or the iteration is cancelled.
    public init(trapping signals: [Int32]) {
        trap = Trap(Set(signals))
    }

    /// Traps `signals` until the sequence and its iterator are gone or the iteration is cancelled.
    public init(trapping signals: Int32...) {
        self.init(trapping: signals)
    }

    /// The iterator of the signals trapped since `init`, the first of them first.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(trap: trap)
    }

    /// Yields the trapped signals, in the order they came.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Kept so that the signals stay trapped while the iteration goes on.
        private let trap: Trap
        private var signals: AsyncStream<Int32>.Iterator

        fileprivate init(trap: Trap) {
            self.trap = trap
            signals = trap.signals.makeAsyncIterator()
        }

        /// The next signal that came; nil once the iterating task is cancelled.
        public mutating func next() async -> Int32? {
            await signals.next()
        }
    }
}

/// One sequence's watch of the relay: each signal goes into a stream, kept until it is read.
private final class Trap: Sendable {
    let signals: AsyncStream<Int32>
    private let token: Int

    init(_ numbers: Set<Int32>) {
        let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.signals = signals
        // `each`: yielded on the relay's thread, in the order the signals came.
        let token = SignalRelay.shared.watch(numbers, mode: .each) { continuation.yield($0) }
        self.token = token
        // The iteration ended (its task was cancelled): a trap that nobody reads must not swallow signals.
        continuation.onTermination = { _ in SignalRelay.shared.stopWatching(token) }
    }

    deinit {
        SignalRelay.shared.stopWatching(token)
    }
}
