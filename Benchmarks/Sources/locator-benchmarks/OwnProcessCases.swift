import FixtureRemoteContracts
import Foundation
import Glibc
import HostKit
import PluginActors
import PluginAPI

/// A plugin in a process of its own, through HostKit as a host runs one: the fixture FixtureEchoPlugin
/// (built by this package from the fixture's source, beside this executable) placed by
/// `PluginHost(processes:)` in a child running `plugin-process`. Start-up, an idle child's memory, a
/// crash and a kill until the caller's error and until the same proxy is served again, and a get of
/// the service against a get of the same plugin's service loaded in this process.
enum OwnProcessCases {
    static let name = "own-process"
    static let pluginFile = "libFixtureEchoPlugin.so"

    struct Size: Sendable {
        /// Start-ups timed (each a new host and a new child).
        var startups: Int
        /// Crashes, and kills, timed.
        var crashes: Int
        /// Pings timed, to each kind of child.
        var pings: Int
    }

    /// An idle child's memory, from `/proc/PID/smaps_rollup`, in KiB.
    struct Memory: Sendable {
        var resident = 0
        var proportional = 0
        var proportionalAnonymous = 0
    }

    struct Result: Sendable {
        let size: Size
        /// `PluginHost(processes:)`, `load`, the first get and call, in ms (the child sandboxed, the default).
        let startup: [Double]
        /// The same with the sandbox off (`PluginSandbox(isEnabled: false)`), in the same loop.
        let unconfinedStartup: [Double]
        /// The same (sandboxed), the host made 0.3 s before its `load` is timed: its zygote
        /// (``PluginProcesses/zygote``) ready, as a serving host's is.
        let zygoteReadyStartup: [Double]
        /// A `ping` call's round trip, µs, to a sandboxed child and to an unconfined one: the
        /// seccomp filter's cost on each system call the child makes.
        let pings: (confined: [Double], unconfined: [Double])
        /// The same plugin loaded in this process: `PluginHost()`, `load`, the first get and call, in ms.
        let inProcessStartup: [Double]
        let memory: Memory
        /// From the call of `Echo.crash` to its error, and to the same proxy answering from a new child, in ms.
        let crashToError: [Double]
        let crashToServed: [Double]
        /// From SIGKILL of the child to the error of a call in flight, and to the proxy answering again, in ms.
        let killToError: [Double]
        let killToServed: [Double]
        /// The same, with a standby (``PluginProcesses/standby``): a process started ahead takes over.
        let standbyCrashToServed: [Double]
        let standbyKillToServed: [Double]
        /// A standby's memory (its program started and sandboxed, nothing loaded), if one was found.
        let standbyMemory: Memory?
        /// A get of the proxy (own process), and of the plugin's actor loaded in this process.
        let gets: [Measurement]
    }

    /// The default pause (0.1 s, doubling), which a child that served no longer waits: its restart is
    /// the work alone. (A window of 1 ms: the repetitions never add up to a withdrawal.)
    static let restarts = PluginProcesses.RestartPolicy(maximum: 5, window: .milliseconds(1))

    static func run(_ size: Size, getConfig: HarnessConfig) -> Result {
        let folder = PeerProcess.executableFolder
        let plugin = "\(folder)/\(pluginFile)", child = "\(folder)/plugin-process"
        guard access(plugin, R_OK) == 0 else { fail("\(name): no \(plugin) (built by this package)") }
        guard access(child, X_OK) == 0 else {
            fail("\(name): no \(child); build it with `swift build -c release --product plugin-process` (ci-smoke does)")
        }
        var processes = PluginProcesses(executable: child, arguments: [], files: [pluginFile], heartbeat: nil, restarts: restarts)
        // `LOCATOR_BENCH_ZYGOTE=off`: every child spawned, as before the zygote (PH-0042), for a
        // before-and-after in one build.
        processes.zygote = ProcessInfo.processInfo.environment["LOCATOR_BENCH_ZYGOTE"] != "off"
        var unconfined = processes
        unconfined.sandbox = PluginSandbox(isEnabled: false)

        var startupSamples: [Double] = [], unconfinedSamples: [Double] = [], inProcessSamples: [Double] = []
        var readySamples: [Double] = []
        // Warm-up: the first host of each kind pays for this process's first uses of HostKit.
        for repetition in -1..<size.startups {
            let remote = startUp(plugin, processes)
            let free = startUp(plugin, unconfined)
            let local = startUp(plugin, nil)
            let ready = startUp(plugin, processes, madeAhead: true)
            for host in [remote.host, free.host, local.host, ready.host] { _ = host.shutdown() }
            if repetition >= 0 {
                readySamples.append(ready.milliseconds)
                startupSamples.append(remote.milliseconds)
                unconfinedSamples.append(free.milliseconds)
                inProcessSamples.append(local.milliseconds)
            }
        }
        let pings = (confined: pingRoundTrips(plugin, processes, count: size.pings),
                     unconfined: pingRoundTrips(plugin, unconfined, count: size.pings))

        let host = startUp(plugin, processes).host
        let local = startUp(plugin, nil).host
        defer {
            _ = host.shutdown()
            _ = local.shutdown()
        }
        guard let echo = host.locator.getService(key: RemoteKeys.echo) else { fail("\(name): no echo service") }
        usleep(200_000)
        let memory = Self.memory(of: mustAwait("\(name): pid") { try await echo.pid() })
        let gets = [getCase("get/own-process: the proxy of a service in a child", host.locator),
                    getCase("get/in-process: the same plugin's actor, loaded here", local.locator)].map { measure($0, getConfig) }
        let crashes = (0..<size.crashes).map { _ in crash(echo) }
        let kills = (0..<size.crashes).map { _ in kill(echo) }
        var standby = processes
        standby.standby = true
        let (standbyCrashes, standbyKills, standbyMemory) = withStandby(plugin, standby, size.crashes)
        return Result(size: size, startup: startupSamples, unconfinedStartup: unconfinedSamples,
                      zygoteReadyStartup: readySamples, pings: pings,
                      inProcessStartup: inProcessSamples, memory: memory,
                      crashToError: crashes.map(\.error), crashToServed: crashes.map(\.served),
                      killToError: kills.map(\.error), killToServed: kills.map(\.served),
                      standbyCrashToServed: standbyCrashes, standbyKillToServed: standbyKills,
                      standbyMemory: standbyMemory, gets: gets)
    }

    /// `count` crashes and `count` kills of a host's child whose plugin keeps a standby, each timed
    /// to served again once the next standby is up (a restart that found none would start a process).
    private static func withStandby(_ plugin: String, _ processes: PluginProcesses,
                                    _ count: Int) -> (crashes: [Double], kills: [Double], memory: Memory?) {
        let host = startUp(plugin, processes).host
        defer { _ = host.shutdown() }
        guard let echo = host.locator.getService(key: RemoteKeys.echo) else { fail("\(name): no echo service") }
        usleep(200_000)
        let serving = mustAwait("\(name): pid") { try await echo.pid() }
        // This process's one other child of the plugin (named `locator-benchmarks: plugin FILE` in its
        // command line, not its program's name): the other hosts were shut down.
        let standby = childProcesses(named: "plugin \(pluginFile)").first { $0 != serving }
        let memory = standby.map(Self.memory(of:))
        var crashes: [Double] = [], kills: [Double] = []
        for _ in 0..<count {
            usleep(100_000)
            crashes.append(crash(echo).served)
        }
        for _ in 0..<count {
            usleep(100_000)
            kills.append(kill(echo).served)
        }
        return (crashes, kills, memory)
    }

    /// The processes whose parent is this one and whose command line holds `name`.
    private static func childProcesses(named name: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = Machine.readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")"),
                  let command = Machine.readText("/proc/\(pid)/cmdline"), command.contains(name) else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == getpid()
        }
    }

    /// A new host that loads `plugin` (in a child if `processes` is given), gets the echo service and
    /// calls it once; the milliseconds all of it took (if `madeAhead`, from the load: the host made
    /// 0.3 s before, time for its zygote to be ready).
    private static func startUp(_ plugin: String, _ processes: PluginProcesses?,
                                madeAhead: Bool = false) -> (host: PluginHost, milliseconds: Double) {
        var start = now()
        let host = PluginHost(processes: processes) { line in printError("\(name): \(line)") }
        if madeAhead {
            usleep(300_000)
            start = now()
        }
        let report = host.load([.file(plugin)])
        guard !report.hasProblems, let echo = host.locator.getService(key: RemoteKeys.echo) else {
            fail("\(name): the load failed: \(report.text)")
        }
        let echoed = mustAwait("\(name): the first call") { try await echo.echo(.bench) }
        let elapsed = Double(now() - start) / 1e6
        guard echoed == .bench else { fail("\(name): the echo returned \(echoed)") }
        return (host, elapsed)
    }

    /// `count` sequential `ping` calls to a new child: each round trip in µs (the first 100 not kept).
    private static func pingRoundTrips(_ plugin: String, _ processes: PluginProcesses, count: Int) -> [Double] {
        let host = startUp(plugin, processes).host
        defer { _ = host.shutdown() }
        guard let echo = host.locator.getService(key: RemoteKeys.echo) else { fail("\(name): no echo service") }
        return mustAwait("\(name): pings") {
            var samples: [Double] = []
            for index in 0..<(count + 100) {
                let start = now()
                try await echo.ping()
                if index >= 100 { samples.append(Double(now() - start) / 1e3) }
            }
            return samples
        }
    }

    private static func getCase(_ caseName: String, _ locator: ServiceLocator) -> BenchCase {
        BenchCase(name: caseName) { iterations in
            let locator = opaque(locator), key = opaque(RemoteKeys.echo)
            var sum: UInt = 0
            // 1 per service got; a nil counts 2^32, which the harness reports as a broken setup.
            for _ in 0..<iterations { sum &+= locator.getService(key: key) == nil ? 1 << 32 : 1 }
            return sum
        }
    }

    /// `Echo.crash`: ms until its error, and until a new child answers the same proxy.
    private static func crash(_ echo: any Echo) -> (error: Double, served: Double) {
        mustAwait("\(name): crash") {
            let before = try await echo.pid()
            let start = now()
            do {
                try await echo.crash()
                fail("\(name): crash returned")
            } catch PluginActorError.processEnded {
            }
            let failed = now()
            try await waitUntilServed(echo, other: before)
            return (Double(failed - start) / 1e6, Double(now() - start) / 1e6)
        }
    }

    /// SIGKILL of the child while a call hangs in it: ms until that call's error, and until a new child
    /// answers the same proxy.
    private static func kill(_ echo: any Echo) -> (error: Double, served: Double) {
        mustAwait("\(name): kill") {
            let before = try await echo.pid()
            let hung = Task { try await echo.hang() }
            // Long enough for the call to reach the child on this busy machine; only the kill is timed.
            try await Task.sleep(for: .milliseconds(50))
            let start = now()
            Glibc.kill(before, SIGKILL)
            do {
                try await hung.value
                fail("\(name): hang returned")
            } catch PluginActorError.processEnded {
            }
            let failed = now()
            try await waitUntilServed(echo, other: before)
            return (Double(failed - start) / 1e6, Double(now() - start) / 1e6)
        }
    }

    /// Returns once `echo` answers from a process other than `other`.
    private static func waitUntilServed(_ echo: any Echo, other: Int32) async throws {
        let deadline = now() + 30_000_000_000
        while now() < deadline {
            if let pid = try? await echo.pid(), pid != other { return }
            try await Task.sleep(for: .microseconds(200))
        }
        fail("\(name): no new process answered within 30 s")
    }

    private static func memory(of pid: Int32) -> Memory {
        guard let text = Machine.readText("/proc/\(pid)/smaps_rollup") else { fail("\(name): no smaps_rollup of \(pid)") }
        var memory = Memory()
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kib = Int(fields[1]) else { continue }
            switch fields[0] {
            case "Rss:": memory.resident = kib
            case "Pss:": memory.proportional = kib
            case "Pss_Anon:": memory.proportionalAnonymous = kib
            default: break
            }
        }
        return memory
    }
}
