import Glibc
import ProcessSignals
import Testing

/// Signals raised in this process: SIGURG and SIGVTALRM, which nothing else in the suite uses, each
/// sent only while a sequence traps it. Each test ignores them while no sequence is there (so that a
/// stray one cannot end the test process), which is also the former action a sequence must give back.
/// The time limits only keep a lost signal from hanging the suite.
@Suite(.serialized) struct ProcessSignalSequenceTests {
    /// Two signals sent before anyone iterates are both kept, and yielded in the order they were
    /// sent: SIGVTALRM (26) before SIGURG (23), the reverse of the order in which the kernel delivers
    /// two pending signals. A second sequence of the same signals tells when each has been relayed.
    @Test(.timeLimit(.minutes(5)))
    func signalsSentBeforeTheIterationAreKeptAndYieldedInTheOrderTheyCame() async {
        let ignored = IgnoredSignals([SIGURG, SIGVTALRM])
        defer { ignored.restore() }
        let signals = ProcessSignalSequence(trapping: SIGURG, SIGVTALRM)
        var relayed = ProcessSignalSequence(trapping: SIGURG, SIGVTALRM).makeAsyncIterator()
        kill(getpid(), SIGVTALRM)
        #expect(await relayed.next() == SIGVTALRM)
        kill(getpid(), SIGURG)
        #expect(await relayed.next() == SIGURG)
        var iterator = signals.makeAsyncIterator()
        #expect(await iterator.next() == SIGVTALRM)
        #expect(await iterator.next() == SIGURG)
    }

    /// Two sequences that trap one signal each yield it.
    @Test(.timeLimit(.minutes(5)))
    func everySequenceOfASignalYieldsIt() async {
        let ignored = IgnoredSignals([SIGURG])
        defer { ignored.restore() }
        var first = ProcessSignalSequence(trapping: SIGURG).makeAsyncIterator()
        var second = ProcessSignalSequence(trapping: [SIGURG]).makeAsyncIterator()
        kill(getpid(), SIGURG)
        #expect(await first.next() == SIGURG)
        #expect(await second.next() == SIGURG)
    }

    /// Cancelling the task that iterates ends the iteration, and the sequence (still alive) traps the
    /// signal no more: its former action is back.
    @Test(.timeLimit(.minutes(5)))
    func cancellingTheIteratingTaskEndsTheIterationAndGivesTheSignalBack() async throws {
        let ignored = IgnoredSignals([SIGVTALRM])
        defer { ignored.restore() }
        let signals = ProcessSignalSequence(trapping: SIGVTALRM)
        let (received, tell) = AsyncStream.makeStream(of: Int32?.self)
        let iterating = Task {
            var iterator = signals.makeAsyncIterator()
            tell.yield(await iterator.next())
            return await iterator.next()
        }
        #expect(ignored.handler(of: SIGVTALRM) != ignored.ignore, "not trapped while the sequence lives")
        kill(getpid(), SIGVTALRM)
        var told = received.makeAsyncIterator()
        #expect(await told.next() == SIGVTALRM)
        iterating.cancel()
        #expect(await iterating.value == nil, "the iteration went on after its task was cancelled")
        // The trap is let go as the iteration ends, on the thread that cancelled or the iterating one.
        while ignored.handler(of: SIGVTALRM) != ignored.ignore {
            try await Task.sleep(for: .milliseconds(5))
        }
        withExtendedLifetime(signals) {}
    }
}

/// Signals ignored for the length of a test, then given the actions they had.
private struct IgnoredSignals {
    private let former: [(Int32, sighandler_t?)]

    init(_ numbers: [Int32]) {
        former = numbers.map { ($0, signal($0, SIG_IGN)) }
    }

    /// SIG_IGN, as an address: handlers are C function pointers, compared by address.
    var ignore: Int { unsafeBitCast(SIG_IGN, to: Int.self) }

    /// The address of the handler `number` has now.
    func handler(of number: Int32) -> Int {
        var action = sigaction()
        sigaction(number, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }

    func restore() {
        for (number, handler) in former { signal(number, handler) }
    }
}
