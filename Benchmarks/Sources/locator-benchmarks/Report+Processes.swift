/// The report's sections on services in another process: the call against its floor, and a plugin
/// in a process of its own through HostKit.
extension Report {
    func printCalls(_ result: CallCases.Result) {
        let size = result.size
        print("\n## A call to another process against a raw ping-pong of its bytes (\(size.rounds) rounds, in turns)\n")
        print("Two processes of this executable on a Unix stream socket pair. The floor writes the bytes of one call")
        print("frame of `BenchEcho.echo(EchoMessage)` (\(result.frames.call.count) bytes, captured from a real call) and reads its reply")
        print("frame (\(result.frames.reply.count) bytes), blocking `send`/`read`, the peer answering with blocking `read`/`write`. The call")
        print("goes through `PluginActorSystem` both ways, the peer serving a distributed actor. \(size.roundTrips) sequential round")
        print("trips per round, each timed; CPU is each process's user + system time per round trip. Medians over the rounds.\n")
        print("| case | p50 us | p99 us | caller CPU us | peer CPU us | p50 / floor's (same round) |")
        print("|---|---:|---:|---:|---:|---:|")
        for (label, rounds) in [("calls/floor: raw ping-pong of the same bytes", result.floor),
                                ("calls/shared-floor: the same bytes through shared memory, futex wake-ups", result.sharedFloor),
                                ("calls/spinning-floor: the same, each side spinning \(CallCases.spins) pauses before it sleeps", result.spinningFloor),
                                ("calls/sequential: `try await echo(message)`", result.call)] {
            let ratio = zip(rounds, result.floor).map { $0.p50 / $1.p50 }.median
            print("| \(label) | \(format(rounds.map(\.p50).median, 1)) | \(format(rounds.map(\.p99).median, 1)) | \(format(rounds.map(\.callerCPU).median, 1)) | \(format(rounds.map(\.peerCPU).median, 1)) | \(format(ratio, 2))x |")
        }
        let inFlight = result.inFlight
        print("\n\(CallCases.tasksInFlight) tasks each making \(size.callsPerTask) calls back to back: \(format(inFlight.median, 0)) calls/s (median; min \(format(inFlight.min() ?? .nan, 0)), max \(format(inFlight.max() ?? .nan, 0))); sequential: \(format(1e6 / result.call.map(\.p50).median, 0)) calls/s at the p50")
        printPayloads(result.payloads)
    }

    private func printPayloads(_ rows: [PayloadCases.Row]) {
        print("\n### A large argument: `try await count(bytes)` against `memcpy` and a raw socket write of the same bytes\n")
        print("`memcpy` into a buffer of this process; the socket: a length and the bytes written to a peer that reads them")
        print("and answers 8 bytes; the call: `BenchEcho.count([UInt8])`, answered with the count. In turns, ms, medians of \(rows.first?.call.count ?? 0).\n")
        print("| bytes | memcpy | socket | call | socket / memcpy | call / memcpy | call / socket |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for row in rows {
            let copy = row.memcpy.median, socket = row.socket.median, call = row.call.median
            print("| \(row.size) | \(format(copy, 3)) | \(format(socket, 3)) | \(format(call, 3)) | \(format(socket / copy, 1))x | \(format(call / copy, 1))x | \(format(call / socket, 1))x |")
        }
    }

    func printOwnProcess(_ result: OwnProcessCases.Result) {
        print("\n## A plugin in a process of its own (FixtureEchoPlugin through `PluginHost(processes:)` and `plugin-process`)\n")
        print("Start-up: a new host, `load` of the plugin file, the first get and the first `echo` call answered (in a")
        print("child: spawn, connect, the child's checks and load, start). A crash is `Echo.crash` (fatalError; HostKit")
        print("runs children with `SWIFT_BACKTRACE=enable=no`); a kill is SIGKILL of the child while an `Echo.hang` call is in")
        print("flight, timed from the kill. \"Served again\": the same proxy answers from the new child, polled every 0.2 ms;")
        print("the restart policy is the default: a child that served is restarted at once (the pause, 100 ms doubling, is for a crash loop). ms.\n")
        print("| case | median | min | max | samples |")
        print("|---|---:|---:|---:|---:|")
        for (label, samples) in [("own-process/start-up: spawn, checks, load, first call", result.startup),
                                 ("own-process/start-up, sandbox off: the same, the child unconfined", result.unconfinedStartup),
                                 ("own-process/start-up, zygote ready: the same, the host made 0.3 s before", result.zygoteReadyStartup),
                                 ("own-process/in-process start-up: the same plugin loaded here, first call", result.inProcessStartup),
                                 ("own-process/crash: to the caller's error", result.crashToError),
                                 ("own-process/crash: to the same proxy served again", result.crashToServed),
                                 ("own-process/kill: to the error of the call in flight", result.killToError),
                                 ("own-process/kill: to the same proxy served again", result.killToServed),
                                 ("own-process/crash, standby: to the same proxy served again", result.standbyCrashToServed),
                                 ("own-process/kill, standby: to the same proxy served again", result.standbyKillToServed)] {
            print("| \(label) | \(format(samples.median, 2)) | \(format(samples.min() ?? .nan, 2)) | \(format(samples.max() ?? .nan, 2)) | \(samples.count) |")
        }
        let (confined, unconfined) = result.pings
        print("\nA `ping` call's round trip, µs (\(confined.count) sequential calls to a child, after 100 not kept): sandboxed "
              + "p50 \(format(confined.median, 1)), p90 \(format(confined.percentile(0.9), 1)); sandbox off p50 "
              + "\(format(unconfined.median, 1)), p90 \(format(unconfined.percentile(0.9), 1)) (\(format(confined.median / unconfined.median, 2))x).")
        print("Start-up with the sandbox against without: +\(format(result.startup.median - result.unconfinedStartup.median, 2)) ms (medians).")
        let memory = result.memory
        print("\nAn idle child (plugin loaded and started, one call served), `/proc/PID/smaps_rollup`: Rss \(memory.resident) KiB, Pss \(memory.proportional) KiB (of which anonymous \(memory.proportionalAnonymous) KiB).")
        if let standby = result.standbyMemory {
            print("A standby (its program started and sandboxed, its plugin loaded, nothing registered nor started): Rss \(standby.resident) KiB, Pss \(standby.proportional) KiB (of which anonymous \(standby.proportionalAnonymous) KiB).")
        }
        print("\n| get (ns) | median | min | max | iterations |")
        print("|---|---:|---:|---:|---:|")
        for get in result.gets {
            print("| \(get.name) | \(format(get.median, 1)) | \(format(get.min, 1)) | \(format(get.max, 1)) | \(get.iterations) |")
        }
    }

    /// The own-process section and its targets, printed after the rest of the report (see main.swift).
    func printOwnProcessPart() {
        guard let ownProcess else { return }
        printOwnProcess(ownProcess)
        print("\n| target | measured | verdict |")
        print("|---|---|---|")
        for target in processTargets() {
            print("| \(target.name) | \(target.measured) | \(target.pass ? "PASS" : "MISS") |")
        }
    }

    func processTargets() -> [Target] {
        var list: [Target] = []
        if let calls {
            list.append(Target(name: "call p50 <= 2x a raw ping-pong of its bytes between two processes",
                               measured: format(calls.ratio, 2) + "x", pass: calls.ratio <= 2))
            let inFlight = calls.inFlight.median
            list.append(Target(name: "\(CallCases.tasksInFlight) calls in flight >= 100,000 calls/s",
                               measured: format(inFlight, 0) + " calls/s", pass: inFlight >= 100_000))
        }
        if let ownProcess {
            let startup = ownProcess.startup.median
            list.append(Target(name: "own process: spawn, checks, load and first call < 10 ms",
                               measured: format(startup, 2) + " ms", pass: startup < 10))
            let ready = ownProcess.zygoteReadyStartup.median, inProcess = ownProcess.inProcessStartup.median
            list.append(Target(name: "own process, zygote ready: load to first call <= 4x the in-process start-up",
                               measured: format(ready / inProcess, 2) + "x", pass: ready <= 4 * inProcess))
            let killed = ownProcess.standbyKillToServed.median
            list.append(Target(name: "own process with a standby: a kill to served again <= 5 ms",
                               measured: format(killed, 2) + " ms", pass: killed <= 5))
            if ownProcess.gets.count == 2 {
                let ratio = ownProcess.gets[0].median / ownProcess.gets[1].median
                list.append(Target(name: "own process: a get costs what an in-process get costs (<= 1.2x)",
                                   measured: format(ratio, 2) + "x", pass: ratio <= 1.2))
            }
        }
        return list
    }
}
