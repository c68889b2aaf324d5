import Foundation
import Glibc
import HostKit
import ProcessSignals
import TestSupport
import Testing

/// Signals raised in this process: SIGUSR2 for reloads, which nothing else in the suite uses, and
/// SIGWINCH for a shutdown beside them or a reload told apart from theirs (its default action is to
/// ignore it, so a stray one harms nothing). SIGUSR2 is ignored while no watcher is there, so that an uncaught one cannot end the
/// test process; that is also the former action a watcher must give back.
@Suite(.serialized) struct ReloadSignalsTests {
    let versioned = "libversioned.so"

    /// Every signal reloads, not only the first; a shutdown watcher of another signal lives beside
    /// the reload watcher; when the watcher goes away, the signal's former action is back.
    @Test func everySignalReloadsTheHostAndAShutdownWatcherLivesBeside() async throws {
        let former = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, former) }
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: LifecycleScript())
        let reports = Reports()
        var reloads: ReloadSignals? = ReloadSignals(host: plugins.host, signals: [SIGUSR2]) { report, signal in
            reports.record(signal, report.entries.map(\.summary))
        }
        let shutdowns = Reports()
        let stop = ShutdownSignals(host: plugins.host, signals: [SIGWINCH]) { report, signal in
            shutdowns.record(signal, report.lines)
        }
        let path = plugins.folder.file(versioned)
        // Version 3 no longer requires the control: its line says so.
        for (product, upgrade) in [("FixtureVersionTwo", "1.0.0 -> 2.0.0"), ("FixtureVersionThree", "2.0.0 -> 3.0.0")] {
            try plugins.install(product, as: versioned)
            let before = reports.count
            kill(getpid(), SIGUSR2)
            try #require(try await reports.wait(for: before + 1), "no reload for \(product)")
            #expect(reports.all.last?.signal == SIGUSR2)
            let grants = product == "FixtureVersionThree" ? "; grants -fixture.lifecycle" : ""
            #expect(reports.all.last?.lines == ["upgraded fixture-versioned \(upgrade) (\(path))\(grants)"])
        }
        try plugins.remove(versioned)
        kill(getpid(), SIGUSR2)
        try #require(try await reports.wait(for: 3), "no reload for the file removed")
        #expect(reports.all.last?.lines == ["withdrawn fixture-versioned 3.0.0 (\(path))"])
        kill(getpid(), SIGWINCH)
        #expect(try await shutdowns.wait(for: 1), "the shutdown watcher beside it missed SIGWINCH")
        // Still watching after the other watcher's signal.
        kill(getpid(), SIGUSR2)
        #expect(try await reports.wait(for: 4), "no reload after the shutdown watcher's signal")
        reloads = nil
        withExtendedLifetime((reloads, stop)) {}
        var action = sigaction()
        sigaction(SIGUSR2, nil, &action)
        // Handlers are C function pointers, compared by address.
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #expect(handler == unsafeBitCast(SIG_IGN, to: Int.self), "SIGUSR2's former action is not back")
    }

    /// While a reload runs (here, its `then` is held), twenty signals make one more reload after it,
    /// not twenty; a signal after that reloads again. Each signal is awaited as the relay takes it in
    /// (a sequence of the same signals hears it then): the time limit only ends a signal lost.
    @Test(.timeLimit(.minutes(5)))
    func signalsDuringAReloadMakeOneMoreReloadAfterIt() async throws {
        let former = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, former) }
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: LifecycleScript())
        let reports = Reports()
        let gate = DispatchSemaphore(value: 0)
        // SIGWINCH reloads too: a reload says which signal it is for.
        let reloads = ReloadSignals(host: plugins.host, signals: [SIGUSR2, SIGWINCH]) { report, signal in
            reports.record(signal, report.entries.map(\.summary))
            if reports.count == 1 { gate.wait() }
        }
        // Yields each signal once the relay has handed it to the reload watcher too.
        var relayed = ProcessSignalSequence(trapping: SIGUSR2, SIGWINCH).makeAsyncIterator()
        kill(getpid(), SIGUSR2)
        #expect(await relayed.next() == SIGUSR2)
        try #require(try await reports.wait(for: 1), "no reload")
        // Twenty signals while the first reload is held, each sent once the one before was taken in
        // (the kernel keeps one pending signal of a kind, not a count).
        for _ in 1...20 {
            kill(getpid(), SIGUSR2)
            #expect(await relayed.next() == SIGUSR2)
        }
        gate.signal()
        #expect(try await reports.wait(for: 2), "the signals during the reload were lost")
        // A later signal, another one: its reload comes next, after no other (a reload for each signal
        // of the burst would come first). Then the burst's signal reloads again.
        kill(getpid(), SIGWINCH)
        #expect(await relayed.next() == SIGWINCH)
        #expect(try await reports.wait(for: 3), "no reload for a signal after the burst")
        kill(getpid(), SIGUSR2)
        #expect(await relayed.next() == SIGUSR2)
        #expect(try await reports.wait(for: 4), "no reload for the burst's signal after the burst")
        #expect(reports.all.map(\.signal) == [SIGUSR2, SIGUSR2, SIGWINCH, SIGUSR2],
                "\(reports.count) reloads for 23 signals, 20 of them during the first: \(reports.all.map(\.signal))")
        withExtendedLifetime(reloads) {}
    }
}

/// What a watcher was told, handed to the test.
private final class Reports: @unchecked Sendable {
    // @unchecked: `reports` is only touched with `lock` held.
    private let lock = NSLock()
    private var reports: [(signal: Int32, lines: [String])] = []

    func record(_ signal: Int32, _ lines: [String]) {
        lock.withLock { reports.append((signal, lines)) }
    }

    var count: Int { lock.withLock { reports.count } }
    var all: [(signal: Int32, lines: [String])] { lock.withLock { reports } }

    /// Waits (polling, at most 60 s: only a lost signal never comes) until `count` reports came;
    /// returns whether they did.
    func wait(for count: Int) async throws -> Bool {
        try await poll(atMost: .seconds(60), every: .milliseconds(10)) { self.count >= count }
    }
}
