import FixtureRemoteContracts
import Glibc
@_spi(HostKit) import PluginActors

/// A call to a service in another process against the floor under it, side by side: two processes of
/// this executable on a Unix stream socket pair. The floor is a raw ping-pong of the very bytes one
/// call puts on the socket (``CapturedFrames``); the call is `BenchEcho.echo` through PluginActors'
/// system, served by the peer's. Two more floors send the same bytes through shared memory
/// (``SharedMemoryFloor``): one whose waiting side sleeps at once, one that spins a while first.
/// Rounds take turns, in rotating order; then large arguments (``PayloadCases``).
enum CallCases {
    static let name = "calls"
    /// Tasks that each make calls back to back, for the calls-in-flight case.
    static let tasksInFlight = 32
    /// How many times the spinning shared-memory floor checks its mailbox (with a `pause` between)
    /// before it sleeps: a few microseconds, longer than a peer's answer takes on another core.
    static let spins: Int32 = 4_000

    struct Size: Sendable {
        var rounds: Int
        /// Sequential round trips (or calls) per round, each timed.
        var roundTrips: Int
        /// Calls each of ``CallCases/tasksInFlight`` tasks makes per round.
        var callsPerTask: Int
        /// Transfers of each large argument, and of its floors (``PayloadCases``).
        var payloadRepetitions: Int
    }

    /// One round's sequential round trips: percentiles in microseconds, and the CPU time each process
    /// spent per round trip.
    struct Round: Sendable {
        let p50: Double
        let p99: Double
        let callerCPU: Double
        let peerCPU: Double
    }

    struct Result: Sendable {
        let size: Size
        let frames: CapturedFrames
        let floor: [Round]
        /// The same bytes through shared memory: waiting by sleeping at once, and spinning first.
        let sharedFloor: [Round]
        let spinningFloor: [Round]
        let call: [Round]
        /// Calls per second with ``CallCases/tasksInFlight`` tasks calling, per round.
        let inFlight: [Double]
        let payloads: [PayloadCases.Row]

        /// The median over the rounds of (call p50 / floor p50 of the same round).
        var ratio: Double { zip(call, floor).map { $0.p50 / $1.p50 }.median }
    }

    static func run(_ size: Size) -> Result {
        let frames = CapturedFrames.capture()
        let floorPeer = PeerProcess.start("floor", ["\(frames.call.count)", PeerRoles.hex(frames.reply)])
        let actorPeer = PeerProcess.start("actor")
        let sharedFloor = SharedMemoryFloor(frames, spins: 0), spinningFloor = SharedMemoryFloor(frames, spins: spins)
        defer {
            floorPeer.finish()
            actorPeer.finish()
            sharedFloor.finish()
            spinningFloor.finish()
        }
        let connection: PluginActorConnection
        let proxy: any BenchEcho
        do {
            connection = try PluginActorSystem.shared.connect(peer: "bench-peer", socket: actorPeer.socket,
                                                              serve: { name in throw PluginActorError.unsupported("no \(name) here") })
            proxy = try $BenchEcho<PluginActorSystem>.resolve(id: PluginActorID(peer: "bench-peer", name: benchEchoName), using: .shared)
        } catch {
            fail("calls: \(error)")
        }
        defer { connection.close(.unavailable(peer: "bench-peer", reason: "the benchmark is over")) }

        // Warm-up: every path, and the first call's metadata lookups.
        let warmUp = max(100, size.roundTrips / 10)
        _ = floorRound(floorPeer, frames, count: warmUp)
        _ = sharedRound(sharedFloor, frames, count: warmUp)
        _ = sharedRound(spinningFloor, frames, count: warmUp)
        _ = callRound(actorPeer, proxy, count: warmUp)
        var floor: [Round] = [], shared: [Round] = [], spinning: [Round] = [], call: [Round] = [], inFlight: [Double] = []
        for round in 0..<size.rounds {
            for turn in 0..<4 {
                switch (turn + round) % 4 {
                case 0: floor.append(floorRound(floorPeer, frames, count: size.roundTrips))
                case 1: shared.append(sharedRound(sharedFloor, frames, count: size.roundTrips))
                case 2: spinning.append(sharedRound(spinningFloor, frames, count: size.roundTrips))
                default: call.append(callRound(actorPeer, proxy, count: size.roundTrips))
                }
            }
            inFlight.append(inFlightRound(proxy, callsPerTask: size.callsPerTask))
        }
        let payloads = PayloadCases.run(proxy, repetitions: size.payloadRepetitions)
        return Result(size: size, frames: frames, floor: floor, sharedFloor: shared, spinningFloor: spinning, call: call,
                      inFlight: inFlight, payloads: payloads)
    }

    /// `count` round trips of the captured bytes, each timed.
    private static func floorRound(_ peer: PeerProcess, _ frames: CapturedFrames, count: Int) -> Round {
        var reply = [UInt8](repeating: 0, count: frames.reply.count)
        return timedRound(peer, count: count) {
            guard RawSocket.write(peer.socket, frames.call), RawSocket.read(peer.socket, &reply, count: reply.count) else {
                fail("calls: the floor's peer ended")
            }
        }
    }

    /// `count` round trips of the captured bytes through shared memory, each timed.
    private static func sharedRound(_ floor: SharedMemoryFloor, _ frames: CapturedFrames, count: Int) -> Round {
        var reply = [UInt8](repeating: 0, count: frames.reply.count)
        return timedRound(floor.peer, count: count) { floor.roundTrip(frames.call, into: &reply) }
    }

    /// `count` calls one after another, each timed.
    private static func callRound(_ peer: PeerProcess, _ proxy: any BenchEcho, count: Int) -> Round {
        let cpuBefore = (ProcessCPU.own(), ProcessCPU.of(peer.pid))
        let samples = mustAwait("calls: a call failed") {
            var samples: [UInt64] = []
            samples.reserveCapacity(count)
            for _ in 0..<count {
                let start = now()
                let echoed = try await proxy.echo(.bench)
                samples.append(now() - start)
                guard echoed.number == EchoMessage.bench.number else { fail("calls: the echo returned \(echoed)") }
            }
            return samples
        }
        return round(samples, cpuBefore: cpuBefore, peer: peer)
    }

    /// Runs `once` `count` times on this thread, timing each.
    private static func timedRound(_ peer: PeerProcess, count: Int, _ once: () -> Void) -> Round {
        let cpuBefore = (ProcessCPU.own(), ProcessCPU.of(peer.pid))
        var samples: [UInt64] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = now()
            once()
            samples.append(now() - start)
        }
        return round(samples, cpuBefore: cpuBefore, peer: peer)
    }

    /// The round's percentiles, and the CPU time each process spent since `cpuBefore`, per round trip.
    private static func round(_ samples: [UInt64], cpuBefore: (UInt64, UInt64), peer: PeerProcess) -> Round {
        let callerCPU = Double(ProcessCPU.own() - cpuBefore.0), peerCPU = Double(ProcessCPU.of(peer.pid) - cpuBefore.1)
        let micros = samples.map { Double($0) / 1000 }
        let count = Double(max(samples.count, 1))
        return Round(p50: micros.percentile(0.5), p99: micros.percentile(0.99),
                     callerCPU: callerCPU / 1000 / count, peerCPU: peerCPU / 1000 / count)
    }

    /// Calls per second with ``tasksInFlight`` tasks each making `callsPerTask` calls back to back.
    private static func inFlightRound(_ proxy: any BenchEcho, callsPerTask: Int) -> Double {
        let start = now()
        mustAwait("calls: a call in flight failed") {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<tasksInFlight {
                    group.addTask {
                        for _ in 0..<callsPerTask { _ = try await proxy.echo(.bench) }
                    }
                }
                try await group.waitForAll()
            }
        }
        return Double(tasksInFlight * callsPerTask) / (Double(now() - start) / 1e9)
    }
}

/// CPU time (user and system) of a process, in nanoseconds.
enum ProcessCPU {
    static func own() -> UInt64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let micros = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
        return UInt64(micros) * 1000
    }

    /// From `/proc/PID/stat` (utime and stime, in clock ticks): coarse, so read around many calls.
    static func of(_ pid: pid_t) -> UInt64 {
        guard let text = Machine.readText("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return 0 }
        // The fields after the command's ")": state is the first, utime the 12th, stime the 13th.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return 0 }
        return (user + system) * 1_000_000_000 / UInt64(sysconf(Int32(_SC_CLK_TCK)))
    }
}
