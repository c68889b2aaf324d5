import Foundation
import Glibc
import HostKit
import ProcessSignals
import TestSupport
import Testing

/// Signals raised in this process: SIGUSR1 only, which nothing else in the suite uses, and never more
/// often than a watcher is there to catch it (an uncaught SIGUSR1 would end the test process).
@Suite(.serialized) struct ShutdownSignalsTests {
    /// One watcher after another each catches its signal: a watcher that went away leaves nothing
    /// behind that swallows the next one's.
    @Test func eachWatcherInTurnCatchesItsSignalAndShutsTheHostDown() throws {
        for round in 1...3 {
            let host = PluginHost()
            host.load(BuiltPlugins.samples)
            #expect(host.startedPlugins.count == BuiltPlugins.samples.count)
            let caught = CaughtSignals()
            let watch = ShutdownSignals(host: host, signals: [SIGUSR1], timeout: .seconds(5)) { report, signal in
                caught.record(signal, report)
            }
            // Sent right after `init` returns: the handler is installed by then. Sent to the process,
            // as `kill` does: this test's thread (one of the cooperative pool's) blocks signals.
            kill(getpid(), SIGUSR1)
            let (signal, report) = try #require(caught.wait(seconds: 60), "round \(round): SIGUSR1 was not caught")
            #expect(signal == SIGUSR1)
            #expect(report.entries.filter { $0.service == nil }.map(\.plugin) == ["notes", "greeter", "clock", "account"])
            #expect(report.entries.compactMap(\.service) == ["sample.journal"])
            #expect(report.problems.isEmpty)
            #expect(host.startedPlugins.isEmpty)
            withExtendedLifetime(watch) {}
        }
    }

    /// Two watchers of one signal both run (two hosts in one process).
    @Test func everyWatcherOfTheSignalRuns() throws {
        let first = CaughtSignals()
        let second = CaughtSignals()
        let one = ShutdownSignals(host: PluginHost(), signals: [SIGUSR1]) { report, signal in first.record(signal, report) }
        let two = ShutdownSignals(host: PluginHost(), signals: [SIGUSR1]) { report, signal in second.record(signal, report) }
        kill(getpid(), SIGUSR1)
        #expect(first.wait(seconds: 60)?.0 == SIGUSR1)
        #expect(second.wait(seconds: 60)?.0 == SIGUSR1)
        withExtendedLifetime((one, two)) {}
    }

    /// A ProcessSignalSequence of the watcher's signal shares the one relay: both hear it. The time
    /// limit only ends a signal lost: the pool the await resumes on may be busy for a minute.
    @Test(.timeLimit(.minutes(5)))
    func aSequenceOfTheSignalHearsItBesideTheWatcher() async {
        let caught = CaughtSignals()
        let watch = ShutdownSignals(host: PluginHost(), signals: [SIGUSR1]) { report, signal in caught.record(signal, report) }
        var signals = ProcessSignalSequence(trapping: SIGUSR1).makeAsyncIterator()
        kill(getpid(), SIGUSR1)
        #expect(await signals.next() == SIGUSR1)
        #expect(caught.wait(seconds: 60)?.0 == SIGUSR1)
        withExtendedLifetime(watch) {}
    }
}

/// What a watcher was told, handed to the test thread.
private final class CaughtSignals: @unchecked Sendable {
    // @unchecked: `caught` is only touched with `lock` held.
    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    private var caught: (Int32, ShutdownReport)?

    func record(_ signal: Int32, _ report: ShutdownReport) {
        lock.withLock { caught = (signal, report) }
        arrived.signal()
    }

    /// The signal and the report, once the watcher ran; nil if not within `seconds`, a hang bound (only
    /// a lost signal never comes).
    func wait(seconds: Int) -> (Int32, ShutdownReport)? {
        guard arrived.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return lock.withLock { caught }
    }
}
