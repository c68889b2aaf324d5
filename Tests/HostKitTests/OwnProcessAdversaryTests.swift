import Dispatch
import FixtureRemoteContracts
import Foundation
import Glibc
import HostKit
@_spi(HostKit) import PluginAPI
import PluginActors
import TestSupport
import Testing

/// An adversary's pass over plugins placed in a process of their own: children that fail at the
/// worst moment, or that stop answering. Each test shows one way the host is left with a process
/// it should not have.
@Suite(.serialized) struct OwnProcessAdversaryTests {
    /// A restart whose new child ends while it loads (it crashed again, or exited) is counted
    /// twice: once by the restart, which calls `ended` itself, and once by the child's own end.
    /// Two restarts then run at once, each spawning a child; the later one becomes current and the
    /// earlier is never stopped: it outlives the host's shutdown, its plugin loaded and serving.
    ///
    /// And the failed restart must end its own child only: the child's end restarts it on another
    /// thread (after a pause), and once that restart has made a newer child current, a failed restart
    /// that ended "the current child" killed the newer one, which cost a fourth child (seen on a busy
    /// machine). Here the failed restart is held, in its report, until the newer child has served.
    @Test func aChildThatEndsWhileItRestartsLeavesNoProcessBehindTheShutdown() async throws {
        // Run 1 serves; run 2 (the first restart) exits before it loads; later runs serve.
        let program = try WrappedChildProgram(behaviour: #"if [ "$n" -eq 2 ]; then exit 3; fi"#)
        defer { program.killLeftovers() }
        var settings = OwnProcessTests.processes(restarts: .init(maximum: 10, window: .seconds(60), backoff: .milliseconds(20)))
        program.install(in: &settings)
        // Each child a run of the program, as the behaviour counts them: none forked from a zygote.
        settings.zygote = false
        let reported = Collected<[String]>([])
        let (release, released) = (DispatchSemaphore(value: 0), Collected(false))
        let host = PluginHost(processes: settings) { line in
            reported.withLock { $0.append(line) }
            // The failed restart reports before it ends its child: it waits there for the test (bounded).
            guard line.contains(" was not restarted: ") else { return }
            _ = release.wait(timeout: .now() + 120)
            released.withLock { $0 = true }
        }
        defer {
            release.signal()
            host.shutdown()
        }
        let loaded = host.load(["FixtureEchoUserPlugin", "FixtureEchoPlugin"].map { .file(BuiltPlugins.path($0)) })
        #expect(loaded.problems.isEmpty, "\(loaded.problems)")
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        _ = try? await echo.crash()
        // Until run 2's restart has failed ("was not restarted") and the restart after it, run 3's, has
        // succeeded ("restarted"): a restart that counts run 2's end too does so as it fails, and
        // schedules a third restart then ("restarting"), which the count below sees spawned or not.
        let restartsDone = { (lines: [String]) in
            lines.contains { $0.contains(" was not restarted: ") } && lines.contains { $0.hasSuffix(" restarted") }
        }
        try await waitFor(atMost: .seconds(60), { restartsDone(reported.withLock { $0 }) },
                          orSay: "reported: \(reported.withLock { $0 })")
        // Run 3 serves, and the failed restart goes on: run 3 still serves after it (a call to a killed
        // run 3 would wait for a run 4, which answers with its own pid).
        let third = try await echo.pid()
        release.signal()
        try await waitFor(atMost: .seconds(60), { released.withLock { $0 } })
        #expect(try await echo.pid() == third, "the failed restart ended the child that served after it")
        let runs = program.runs
        let scheduled = reported.withLock { $0 }.filter { $0.contains("; restarting ") }
        host.shutdown()
        _ = try await poll(atMost: .seconds(60)) { program.running.isEmpty }
        let lines = reported.withLock { $0 }
        #expect(program.running.isEmpty, "still running after the shutdown: \(program.running) of runs \(runs); reported: \(lines)")
        #expect(scheduled.count == 2, "one crash and one failed restart scheduled \(scheduled.count) restarts; reported: \(lines)")
        // Run 1 served: restarted at once. Run 2 ended before it served: a crash loop's pause.
        #expect(scheduled.first?.hasSuffix("; restarting now") == true && scheduled.last?.contains("; restarting in ") == true,
                "\(scheduled)")
        #expect(runs.count == 3, "one crash and one failed restart made \(runs.count) children; reported: \(lines)")
    }

    /// A restart waits for its new child's load and start with `BlockingCall.run` (a semaphore)
    /// on the task that slept through the backoff: a thread of Swift concurrency, of which there
    /// is one per core. Children that are slow to load again (a plugin whose initializers take
    /// long, a machine under load) hold those threads for as long as their load takes (up to the
    /// call timeout), and every other task of the host waits behind them.
    @Test func aRestartWaitingForItsChildHoldsNoThreadOfSwiftConcurrency() async throws {
        // Run 1 serves; each restart's child waits before it loads until the test opens the gate, so
        // the restarts wait for their children for as long as the test needs (the call timeout, which
        // would end their wait, is far past the probe's bound).
        let gate = try TemporaryFolder()
        let open = gate.file("open")
        let hosts = max(2, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        var programs: [WrappedChildProgram] = []
        var started: [PluginHost] = []
        defer {
            _ = FileManager.default.createFile(atPath: open, contents: nil)
            for host in started { host.shutdown() }
            for program in programs { program.killLeftovers() }
        }
        var echoes: [any Echo] = []
        for _ in 0..<hosts {
            let program = try WrappedChildProgram(behaviour: #"if [ "$n" -ge 2 ]; then while [ ! -e '\#(open)' ]; do sleep 0.1; done; fi"#)
            programs.append(program)
            var settings = OwnProcessTests.processes(callTimeout: .seconds(20 * 60))
            program.install(in: &settings)
            // Each child a run of the program, as the behaviour counts them: none forked from a zygote.
            settings.zygote = false
            let (host, _) = try OwnProcessTests.host(settings)
            started.append(host)
            echoes.append(try host.locator.tryService(key: RemoteKeys.echo))
        }
        await withTaskGroup(of: Void.self) { group in
            for echo in echoes { group.addTask { _ = try? await echo.crash() } }
        }
        // Once every host's restart has started its child (run 2, held at the gate), a task of the
        // pool must run while they all wait. With the restarts on the pool, it runs only once their
        // call timeouts end the waits: past the bound, which only keeps that failure from hanging.
        let restarting = programs
        let opened = Collected(false)
        let probe = await aPoolTaskRuns(whileHeld: { restarting.allSatisfy { $0.runs.count >= 2 } }, within: .seconds(5 * 60)) {
            opened.withLock { $0 = FileManager.default.createFile(atPath: open, contents: nil) }
        }
        #expect(opened.withLock { $0 }, "the gate \(open) could not be opened")
        #expect(probe.underWay, "not every host restarted its child: \(programs.map(\.runs))")
        // The point of the test is the wait: an unrelated task must not wait for children to load.
        #expect(probe.ran, "no task of Swift concurrency ran while \(hosts) restarts waited for their children")
    }

    /// An operator's call timeout too long to count in milliseconds (`.seconds(Int64.max)`, "no
    /// timeout"): `PluginProcess.milliseconds` multiplies its seconds by 1000 to hand it to the
    /// child, and the overflow traps, ending the host at the spawn. It should be clamped (or
    /// refused by name).
    @Test
    func aCallTimeoutTooLongToCountInMillisecondsIsNoCrash() {
        let host = PluginHost(processes: OwnProcessTests.processes(callTimeout: .seconds(Int64.max))) { _ in }
        defer { host.shutdown() }
        let report = host.load([.file(BuiltPlugins.path("FixtureEchoPlugin"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
    }
}

/// A program that stands for `plugin-process`: a shell script that records each run (a file
/// `run.<pid>`), does what `behaviour` says (with `$n` the number of the run, from 1), then runs
/// the real `plugin-process` in its place (same pid, the host's socket on descriptor 3).
extension OwnProcessAdversaryTests {
    /// The child program run by hand, its descriptor 3 closed or a file: it says there is no host and
    /// exits 2. Before, with 3 closed, it could take libdispatch's epoll descriptor (given that number
    /// once it was free) for the host's socket, close it, and die of SIGILL in libdispatch.
    @Test(arguments: ["exec 3>&-; exec \"$0\"", "exec \"$0\" 3</etc/hostname"])
    func theChildProgramWithoutItsHostSaysSoAndExitsTwo(_ script: String) async throws {
        let folder = try TemporaryFolder()
        let run = try await runChild("/bin/sh", ["-c", script, BuiltPlugins.directory + "/plugin-process"],
                                     in: URL(fileURLWithPath: folder.path), log: URL(fileURLWithPath: folder.path))
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("no connection to the host on descriptor 3: it is not a Unix stream socket"), "\(run.output)")
    }
}

final class WrappedChildProgram: Sendable {
    let folder: String
    var path: String { folder + "/child" }

    /// Puts the program in `settings`, run as `/bin/sh` reading the script rather than the script
    /// run itself: exec of a file that some process holds open for writing fails (`ETXTBSY`), and a
    /// child another test spawns meanwhile holds the descriptor that wrote the script until it execs
    /// (CI saw a zygote's start fail so: "posix_spawn: Text file busy").
    func install(in settings: inout PluginProcesses) {
        settings.executable = "/bin/sh"
        settings.arguments = [path]
    }

    init(behaviour: String) throws {
        var template = Array("/tmp/own-process-adversary.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        folder = String(cString: made)
        let script = """
            #!/bin/sh
            : > '\(folder)/run.'$$
            n=$(ls '\(folder)' | grep -c '^run\\.')
            \(behaviour)
            exec '\(BuiltPlugins.directory)/plugin-process' "$@"

            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o700)
    }

    /// The process id of every run so far.
    var runs: [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap { $0.hasPrefix("run.") ? Int32($0.dropFirst(4)) : nil }.sorted()
    }

    /// The runs still running (not ended, not a zombie).
    var running: [Int32] { runs.filter(isRunning) }

    /// Kills what the test started and the host left running.
    func killLeftovers() {
        for pid in running { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// True if process `pid` exists and has not ended (a zombie, or a process whose id was reused by
/// something that is not a plugin process, does not count).
func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
    guard state != "Z" else { return false }
    let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
    return command.contains("plugin-process") || command.contains("/child")
}
