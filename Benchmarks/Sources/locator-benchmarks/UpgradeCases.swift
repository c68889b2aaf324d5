import Glibc
import HostKit
import PluginAPI
import Synchronization

/// Upgrades in a running host (`PluginHost.reload()`): one ``GeneratedPlugin`` served from one path,
/// and before each upgrade a fresh copy of the same library (same plugin name and keys, a new file)
/// renamed over that path, as an operator deploys a new version. Each figure has a baseline of the
/// same run:
///
/// - the time of a `reload()` that upgrades, beside a `reload()` with nothing changed and bare
///   `dlopen` + `dlsym` of a fresh copy, in rotating order;
/// - what upgrades cost 2 threads that get a service through `host.locator`: windows of a fixed length
///   with upgrades back to back on a third thread, in turn with windows where the third thread only
///   spins (what any third thread on this 2-core machine takes from the getters) and windows without;
/// - the memory each kept image adds (code is never unloaded), beside a bare open's.
///
/// The services are `Int`s: a type the host shares with every version (a type of the plugin's own
/// would be a new type in every image, which no key of the host names).
enum UpgradeCases {
    static let name = "upgrade"

    struct Size: Sendable {
        var services: Int
        /// Upgrades timed, each beside a reload with nothing changed and a bare open.
        var upgrades: Int
        /// The length of a get window, in nanoseconds, and how many rounds of the three kinds run.
        var windowNanos: UInt64
        var windowRounds: Int
    }

    /// What a third thread does while 2 threads get.
    enum ThirdThread: CaseIterable, Sendable {
        case none, spinning, upgrading
    }

    /// One get window: both getting threads' throughput, and the upgrades that ran meanwhile.
    struct Window: Sendable {
        /// Gets per second: each thread's gets over its own wall time, summed.
        let getsPerSecond: Double
        /// Gets per second of CPU time: each thread's gets over its own CPU time, summed. Another thread
        /// taking the core does not lower it; what an upgrade does to a get does.
        let getsPerCPUSecond: Double
        let gets: Int
        /// Gets that returned nil or another value than the service's.
        let failed: Int
        /// Milliseconds per upgrade that ran in the window.
        let upgrades: [Double]
    }

    struct Result: Sendable {
        let size: Size
        let libraryBytes: Int
        /// Milliseconds per call, by contestant, in the order they ran.
        let upgrade: [Double], unchanged: [Double], bare: [Double]
        /// The memory the timed upgrades and the bare opens added in all.
        let upgradeMemory: MemoryReading, bareMemory: MemoryReading
        /// The get windows by what the third thread did, in the order of the rounds.
        let windows: [ThirdThread: [Window]]
        /// The memory the get windows added in all (only the upgrades in them map images or keep
        /// anything), and the images they mapped.
        let windowMemory: MemoryReading
        let windowImages: Int
        /// Plugin images the host has mapped at the end (`ReloadReport.imagesMapped`; the whole process).
        let imagesMapped: Int

        var failedGets: Int { windows.values.joined().reduce(0) { $0 + $1.failed } }
    }

    static func run(_ size: Size) -> Result {
        let library = GeneratedPlugin.build(services: size.services, type: .shared, for: name)
        let image = GeneratedPlugin.Image(path: library)
        let runDirectory = Files.makeTemporaryDirectory("locator-benchmarks-upgrade")
        defer { Files.removeTree(runDirectory) }
        let servedFolder = runDirectory + "/plugins", bareFolder = runDirectory + "/bare"
        Files.makeDirectory(servedFolder)
        Files.makeDirectory(bareFolder)
        // Every version is the same image with the same number: only the file is new.
        let deployment = Deployment(version: image.numbered("000"), folder: servedFolder, services: size.services)

        var samples: [Contestant: [Double]] = [:]
        var upgradeMemory = MemoryReading(), bareMemory = MemoryReading()
        var images = deployment.reloadUnchanged().images
        // Step -1 warms each contestant up; the order rotates so that none always follows another.
        for step in -1..<size.upgrades {
            let order = Contestant.allCases.indices.map { Contestant.allCases[($0 + step + 1) % Contestant.allCases.count] }
            for contestant in order {
                let call: Call
                switch contestant {
                case .upgrade:
                    call = deployment.upgrade()
                    guard call.images == images + 1 else { fail("upgrade: one upgrade mapped \(call.images - images) images") }
                    images = call.images
                    if step >= 0 { upgradeMemory += call.memory }
                case .unchanged:
                    call = deployment.reloadUnchanged()
                case .bare:
                    let file = "\(bareFolder)/copy-\(step + 1).so"
                    Files.write(file, deployment.version)
                    call = Call.timed { GeneratedPlugin.openBare(file) != nil ? 0 : nil }
                    guard call.images == 0 else { fail("upgrade: dlopen or dlsym failed: \(GeneratedPlugin.lastDlerror())") }
                    if step >= 0 { bareMemory += call.memory }
                }
                guard deployment.get() == deployment.expected else { fail("upgrade: the service is gone after \(contestant)") }
                if step >= 0 { samples[contestant, default: []].append(call.millis) }
            }
        }

        // Each round runs each kind of window once, starting with another kind than the last round.
        var windows: [ThirdThread: [Window]] = [:]
        let memoryBefore = MemoryReading.now()
        for round in 0..<size.windowRounds {
            let kinds = ThirdThread.allCases
            for index in kinds.indices {
                let third = kinds[(index + round) % kinds.count]
                windows[third, default: []].append(getWindow(deployment, nanos: size.windowNanos, third: third))
            }
        }
        let windowMemory = MemoryReading.now() - memoryBefore
        let imagesMapped = deployment.reloadUnchanged().images
        return Result(size: size, libraryBytes: Files.size(library), upgrade: samples[.upgrade] ?? [],
                      unchanged: samples[.unchanged] ?? [], bare: samples[.bare] ?? [],
                      upgradeMemory: upgradeMemory, bareMemory: bareMemory, windows: windows,
                      windowMemory: windowMemory, windowImages: imagesMapped - images, imagesMapped: imagesMapped)
    }

    private enum Contestant: CaseIterable {
        case upgrade, unchanged, bare
    }

    /// What one timed call took: milliseconds, the memory it added, and the images mapped after it
    /// (for a bare open: 0 if it worked).
    private struct Call {
        let millis: Double
        let memory: MemoryReading
        let images: Int

        /// Times `body`, which returns the images mapped, or nil if it failed.
        static func timed(_ body: () -> Int?) -> Call {
            let before = MemoryReading.now()
            let start = now()
            let images = body()
            let millis = Double(now() - start) / 1_000_000
            return Call(millis: millis, memory: MemoryReading.now() - before, images: images ?? -1)
        }
    }

    /// A host serving the generated plugin from one path, and what deploys a new version over it.
    private struct Deployment: Sendable {
        let host = PluginHost()
        let version: [UInt8]
        let path: String
        /// The service both getting threads get, and its value.
        let key: ServiceLocatorEasyKey<Int>
        let expected: Int

        init(version: [UInt8], folder: String, services: Int) {
            self.version = version
            path = folder + "/libgenerated-plugin.so"
            expected = services / 2
            key = ServiceLocatorEasyKey(name: GeneratedPlugin.key("000", service: expected))
            Files.install(version, over: path)
            let report = host.load([.directory(folder)])
            guard report.loaded.count == 1, !report.hasProblems else { fail("upgrade: PluginHost.load: \(report.text)") }
            guard get() == expected else { fail("upgrade: no service '\(key.storeKey)' after the load") }
        }

        /// Renames a fresh copy over the path (not timed), then times the `reload()` that upgrades.
        func upgrade() -> Call {
            Files.install(version, over: path)
            var text = ""
            let call = Call.timed {
                let report = host.reload()
                guard report.entries.map(\.action) == [.upgraded], !report.hasProblems else {
                    text = report.text
                    return nil
                }
                return report.imagesMapped
            }
            guard call.images >= 0 else { fail("upgrade: the reload did not upgrade: \(text)") }
            return call
        }

        /// Times a `reload()` with nothing changed.
        func reloadUnchanged() -> Call {
            var text = ""
            let call = Call.timed {
                let report = host.reload()
                guard report.entries.isEmpty, report.unchanged == 1 else {
                    text = report.text
                    return nil
                }
                return report.imagesMapped
            }
            guard call.images >= 0 else { fail("upgrade: a reload with nothing changed changed something: \(text)") }
            return call
        }

        /// One get through the host's published locator, as a request handler does.
        @inline(__always)
        func get() -> Int? {
            host.locator.getService(key: key)
        }
    }

    /// What the threads of one window add up.
    private final class Tally: Sendable {
        let getters = Mutex<[(gets: Int, failed: Int, wall: UInt64, cpu: UInt64)]>([])
        let upgrades = Mutex<[Double]>([])
    }

    /// 2 threads get for `nanos`, while a third does what `third` says.
    private static func getWindow(_ deployment: Deployment, nanos: UInt64, third: ThirdThread) -> Window {
        let tally = Tally()
        _ = runThreads(third == .none ? 2 : 3, iterations: 0) { thread, _ in
            let start = now(), cpuStart = threadCPUTime()
            let deadline = start + nanos
            if thread == 2 { return thirdThread(third, until: deadline, deployment, tally) }
            var gets = 0, failed = 0, sum: UInt = 0
            repeat {
                // The clock is read once per batch, so that it costs the loop little.
                for _ in 0..<256 {
                    if let value = deployment.get(), value == deployment.expected { sum &+= UInt(value) } else { failed += 1 }
                }
                gets += 256
            } while now() < deadline
            let wall = now() - start, cpu = threadCPUTime() - cpuStart
            tally.getters.withLock { $0.append((gets, failed, wall, cpu)) }
            return sum
        }
        let threads = tally.getters.withLock { $0 }
        return Window(
            getsPerSecond: threads.reduce(0) { $0 + Double($1.gets) / Double(max($1.wall, 1)) * 1e9 },
            getsPerCPUSecond: threads.reduce(0) { $0 + Double($1.gets) / Double(max($1.cpu, 1)) * 1e9 },
            gets: threads.reduce(0) { $0 + $1.gets }, failed: threads.reduce(0) { $0 + $1.failed },
            upgrades: tally.upgrades.withLock { $0 })
    }

    /// The third thread's work until `deadline`: upgrades back to back, or arithmetic that touches no
    /// shared memory (it only takes a core). Returns a value computed from its work.
    private static func thirdThread(_ third: ThirdThread, until deadline: UInt64, _ deployment: Deployment,
                                    _ tally: Tally) -> UInt {
        switch third {
        case .none:
            return 0
        case .spinning:
            var state: UInt = 0x9E37_79B9
            repeat {
                for _ in 0..<4096 {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                }
            } while now() < deadline
            return state & 0xFFFF
        case .upgrading:
            while now() < deadline {
                let millis = deployment.upgrade().millis
                tally.upgrades.withLock { $0.append(millis) }
            }
            return 0
        }
    }
}
