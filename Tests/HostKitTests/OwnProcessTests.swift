import FixtureRemoteContracts
import Foundation
import Glibc
@testable import HostKit
@_spi(HostKit) import PluginAPI
import PluginActors
import TestSupport
import Testing

/// Plugins placed in a process of their own (``PluginProcesses``): FixtureEchoPlugin served from its
/// child, FixtureEchoUserPlugin in this process requiring it. Each test starts real child processes
/// (`plugin-process`, built beside the tests) that load the real fixture files.
@Suite struct OwnProcessTests {
    /// Processes for the echo plugin's file, restarted quickly, no heartbeat unless asked.
    static func processes(restarts: PluginProcesses.RestartPolicy = .init(maximum: 3, window: .seconds(60), backoff: .milliseconds(20)),
                          limits: PluginProcesses.Limits = .init(), heartbeat: Duration? = nil,
                          callTimeout: Duration = .seconds(60)) -> PluginProcesses {
        PluginProcesses(executable: BuiltPlugins.directory + "/plugin-process", arguments: [],
                        files: [URL(fileURLWithPath: BuiltPlugins.path("FixtureEchoPlugin")).lastPathComponent],
                        limits: limits, callTimeout: callTimeout, heartbeat: heartbeat, restarts: restarts,
                        environment: sanitizerOptions)
    }

    /// A host with the echo plugin in its own process and its user in this one; the lines it reported.
    /// With `zygoteSettled`, loaded once its zygote serves (or was given up on).
    static func host(_ processes: PluginProcesses = processes(), zygoteSettled: Bool = false) throws -> (PluginHost, Collected<[String]>) {
        let reported = Collected<[String]>([])
        let host = PluginHost(processes: processes) { line in reported.withLock { $0.append(line) } }
        if zygoteSettled { host.zygote.waitUntilSettled() }
        let report = host.load(["FixtureEchoUserPlugin", "FixtureEchoPlugin"].map { .file(BuiltPlugins.path($0)) })
        #expect(report.problems.isEmpty, "\(report.problems)")
        return (host, reported)
    }

    @Test func aDistributedPluginServesFromAProcessOfItsOwnAndMeetsARequirementHere() async throws {
        let (host, _) = try Self.host()
        defer { host.shutdown() }
        // The user plugin's start hook called through a proxy, answered by another process.
        let answer = try host.locator.tryService(key: ServiceLocatorEasyKey<String>(name: "fixture.echo-user.answer"))
        #expect(answer.hasPrefix("hello 42 a,b from pid "))
        #expect(!answer.hasPrefix("hello 42 a,b from pid \(getpid()) "))
        #expect(answer.hasSuffix("by FixtureRemoteContracts.$Echo<PluginActors.PluginActorSystem>"))
        // The host's own get: the same proxy every time (made once per slot), calls that work.
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        #expect(try host.locator.tryService(key: RemoteKeys.echo) === echo as AnyObject)
        let message = EchoMessage(text: "ü", number: -7, tags: ["x"])
        #expect(try await echo.echo(message) == message)
        #expect(try await echo.pid() != getpid())
        let slot = try #require(host.locator.slotInfo(forKey: "fixture.echo"))
        #expect(slot.origin == "fixture-echo")
        #expect(slot.serviceType == "FixtureRemoteContracts.Echo")
    }

    /// A process that served is restarted at once, whatever the pause: its end costs the calls it had
    /// in flight, not a pause (here ten minutes; before, the pause came first, 0.1 s by default).
    @Test func aProcessThatServedIsRestartedAtOnce() async throws {
        let restarts = PluginProcesses.RestartPolicy(maximum: 3, window: .seconds(600), backoff: .seconds(600), maximumBackoff: .seconds(600))
        let (host, reported) = try Self.host(Self.processes(restarts: restarts))
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let before = try await echo.pid()
        _ = try? await echo.crash()
        try await waitFor(atMost: .seconds(120)) { (try? await echo.pid()).map { $0 != before } ?? false }
        #expect(reported.withLock { $0 }.contains { $0.hasSuffix("; restarting now") }, "\(reported.withLock { $0 })")
    }

    @Test func anErrorThePluginThrowsArrivesNamed() async throws {
        let (host, _) = try Self.host()
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        do {
            try await echo.fail("no luck")
            Issue.record("fail returned")
        } catch let PluginActorError.remoteFailure(_, type, message) {
            #expect(type == "FixtureRemoteContracts.EchoFailure")
            #expect(message.contains("no luck"))
        }
    }

    /// A crash fails the call in flight by name, with the signal; the process is restarted, and the
    /// calls made meanwhile wait for it: the same proxy's next call is answered by the new process.
    @Test func aCrashIsReportedAndTheProcessRestartsBehindTheSameProxy() async throws {
        let (host, reported) = try Self.host()
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let before = try await echo.pid()
        do {
            try await echo.crash()
            Issue.record("crash returned")
        } catch let PluginActorError.processEnded(_, reason) {
            #expect(reason.contains("signal"), "\(reason)")
        }
        let after = try await echo.pid()
        #expect(after != before)
        #expect(try await echo.echo(EchoMessage(text: "again", number: 1, tags: [])).text == "again")
        #expect(reported.withLock { $0 }.contains { $0.contains("restarting") }, "\(reported.withLock { $0 })")
    }

    /// Callers that keep calling through a crash lose at most the one call each had in flight: the
    /// calls made after it, those sent as the process died among them (their write failed, so they
    /// never ran), are answered by the next process. Before, a caller whose write found the process
    /// gone saw its later calls fail too, until the new process started.
    @Test func callersKeepCallingThroughACrashAndLoseOnlyTheCallInFlight() async throws {
        let (host, _) = try Self.host()
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let before = try await echo.pid()
        let crashed = Collected(false)
        let errors = Collected<[String]>([])
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    // Calls until one is answered by the next process; counts those that failed.
                    var failed = 0
                    while true {
                        do {
                            if try await echo.pid() != before { return failed }
                        } catch {
                            failed += 1
                            errors.withLock { $0.append("\(error)") }
                        }
                        if failed > 20 { return failed }
                        if crashed.withLock({ $0 }) { await Task.yield() }
                    }
                }
            }
            try? await echo.crash()
            crashed.withLock { $0 = true }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(failures.allSatisfy { $0 <= 1 }, "failed calls per caller: \(failures); \(errors.withLock { $0 })")
    }

    /// An exit with a status is reported with it.
    @Test func anExitIsReportedWithItsStatus() async throws {
        let (host, reported) = try Self.host()
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        await #expect(throws: PluginActorError.self) { try await echo.exit(7) }
        try await waitFor(atMost: .seconds(60)) { reported.withLock { $0 }.contains { $0.contains("status 7") } }
    }

    /// Past the restarts allowed, the process stays down and every call says why.
    @Test func pastItsRestartsAProcessIsWithdrawn() async throws {
        let (host, reported) = try Self.host(Self.processes(restarts: .init(maximum: 1, window: .seconds(600), backoff: .milliseconds(10))))
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        try? await echo.crash()
        try await waitFor(atMost: .seconds(60)) { (try? await echo.ping()) != nil }
        try? await echo.crash()
        try await waitFor(atMost: .seconds(60)) { reported.withLock { $0 }.contains { $0.contains("withdrawn") } }
        do {
            try await echo.ping()
            Issue.record("a withdrawn process answered")
        } catch let PluginActorError.unavailable(_, reason) {
            #expect(reason.contains("withdrawn"))
        }
    }

    /// A call the plugin never answers fails at its timeout, naming the process and the method: the
    /// caller is not hung with it.
    @Test func aHungCallFailsAtItsTimeout() async throws {
        let (host, _) = try Self.host()
        defer { host.shutdown(timeout: .seconds(1)) }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        do {
            try await PluginActorSystem.withCallTimeout(.milliseconds(300)) { try await echo.hang() }
            Issue.record("a hung call returned")
        } catch let PluginActorError.timedOut(peer, target, after) {
            #expect(peer.hasPrefix("libFixtureEchoPlugin.so"))
            // The method as its contract names it, not the runtime's "distributed thunk ...$Echo.hang() async throws".
            #expect(target == "FixtureRemoteContracts.Echo.hang()", "\(target)")
            #expect(after == .milliseconds(300))
        }
    }

    /// A process that stops answering (stopped by a signal, here) is found by the heartbeat, killed
    /// and restarted; the same proxy reaches the new one. The heartbeat is sized for a new child built
    /// for AddressSanitizer on a busy machine, which must answer its first pings within it: at 300 ms
    /// each new child was taken for stopped too, until the restarts ran out.
    @Test func aProcessThatStopsAnsweringIsKilledAndRestarted() async throws {
        let (host, reported) = try Self.host(Self.processes(heartbeat: .seconds(3)))
        defer { host.shutdown(timeout: .seconds(1)) }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let before = try await echo.pid()
        #expect(kill(before, SIGSTOP) == 0)
        try await waitFor(atMost: .seconds(60), { reported.withLock { $0 }.contains { $0.contains("did not answer") } },
                          orSay: "reported: \(reported.withLock { $0 })")
        try await waitFor(atMost: .seconds(60), { (try? await echo.pid()).map { $0 != before } ?? false },
                          orSay: "reported: \(reported.withLock { $0 })")
    }

    /// A CPU limit ends a process that passes it, as a crash does.
    @Test func aProcessPastItsCPULimitIsEndedAndRestarted() async throws {
        let (host, reported) = try Self.host(Self.processes(limits: .init(cpuSeconds: 1)))
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        await #expect(throws: PluginActorError.self) { try await echo.spin(seconds: 30) }
        try await waitFor(atMost: .seconds(60)) { reported.withLock { $0 }.contains { $0.contains("restarting") } }
    }

    /// A memory limit ends a process that passes it, as a crash does; the process comes back. Not under
    /// a sanitizer: its shadow memory counts against the limit, and the child could not even start.
    @Test(.enabled(if: !underSanitizer, "a sanitizer's shadow memory counts against RLIMIT_DATA"))
    func aProcessPastItsMemoryLimitIsEndedAndRestarted() async throws {
        let (host, reported) = try Self.host(Self.processes(limits: .init(memoryBytes: 256 << 20)))
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let before = try await echo.pid()
        await #expect(throws: PluginActorError.self) { try await echo.allocate(megabytes: 1024) }
        try await waitFor(atMost: .seconds(60)) { reported.withLock { $0 }.contains { $0.contains("restarting") } }
        try await waitFor(atMost: .seconds(60)) { (try? await echo.pid()).map { $0 != before } ?? false }
    }

    /// After crashes, restarts and the shutdown, no process of the plugin's is left: each was reaped.
    @Test func noProcessOutlivesTheShutdown() async throws {
        let (host, _) = try Self.host()
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        var pids: [Int32] = []
        for _ in 0..<3 {
            let pid = try await echo.pid()
            pids.append(pid)
            try? await echo.crash()
            try await waitFor(atMost: .seconds(60)) { (try? await echo.pid()).map { $0 != pid } ?? false }
        }
        pids.append(try await echo.pid())
        host.shutdown()
        // Gone and reaped: no such process (a zombie would still answer kill 0).
        try await waitFor(atMost: .seconds(60)) { pids.allSatisfy { kill($0, 0) != 0 && errno == ESRCH } }
        await #expect(throws: PluginActorError.self) { try await echo.ping() }
    }

    /// An operator tells the children apart in `ps`: each is named after the host and its plugin's
    /// file (they all run one program, often the host's own `/proc/self/exe`).
    @Test func aChildIsNamedAfterItsPluginsFileInPs() async throws {
        let (host, _) = try Self.host()
        defer { host.shutdown() }
        let pid = try await host.locator.tryService(key: RemoteKeys.echo).pid()
        let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
        let argv0 = String(decoding: commandLine.prefix { $0 != 0 }, as: UTF8.self)
        #expect(argv0 == "\(ProcessInfo.processInfo.processName): plugin libFixtureEchoPlugin.so", "\(argv0)")
    }

    /// A plugin whose contract is a plain protocol cannot be placed in a process of its own: refused
    /// at load, naming the key; the host goes on.
    @Test func aPlainContractIsRefusedOutOfProcessNamingTheKey() throws {
        let clock = BuiltPlugins.path("ClockPlugin")
        var settings = Self.processes()
        settings.files = [URL(fileURLWithPath: clock).lastPathComponent]
        let host = PluginHost(processes: settings) { _ in }
        let report = host.load([.file(clock)])
        let error = try #require(report.problems.first)
        guard case let .processFailed(_, reason) = error else {
            Issue.record("not a process failure: \(error)")
            return
        }
        #expect(reason.contains("not distributed"), "\(reason)")
        #expect(host.locator.slotInfo(forKey: "clock") == nil)
    }
}

/// Polls `condition` until it holds; the bound (a ``PollBound``) only keeps a failed test from hanging.
func waitFor(atMost limit: Duration, _ condition: () async throws -> Bool,
                     orSay what: @autoclosure () -> String = "") async throws {
    var bound = PollBound(limit, every: .milliseconds(20))
    while try await !condition() {
        guard !bound.passed() else {
            Issue.record("the condition did not come true within \(limit)\(what().isEmpty ? "" : ": " + what())")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A value behind a lock, for what a test's closures collect.
final class Collected<Value: Sendable>: @unchecked Sendable {
    private let mutex = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return body(&value)
    }
}
