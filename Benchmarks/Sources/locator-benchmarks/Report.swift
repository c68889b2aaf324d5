import Glibc

/// Everything one run measured, printed as markdown.
struct Report {
    var gets: [Measurement] = []
    var threads: [ThreadResult] = []
    var registration: [RegistrationResult] = []
    var startup: StartupCases.Result?
    var upgrade: UpgradeCases.Result?
    var calls: CallCases.Result?
    var ownProcess: OwnProcessCases.Result?

    // MARK: Printing

    func printAll(quick: Bool) {
        print("# locator-benchmarks\n")
        print(Machine.describe(quick: quick))
        if !gets.isEmpty { printGets() }
        if !threads.isEmpty { printThreads() }
        if !registration.isEmpty { printRegistration() }
        if let startup { printStartup(startup) }
        if let upgrade { printUpgrade(upgrade) }
        if let calls { printCalls(calls) }
        if let ownProcess { printOwnProcess(ownProcess) }
        let verdicts = targets() + processTargets()
        if !verdicts.isEmpty {
            print("\n## Targets\n")
            print("| target | measured | verdict |")
            print("|---|---|---|")
            for target in verdicts {
                print("| \(target.name) | \(target.measured) | \(target.pass ? "PASS" : "MISS") |")
            }
        }
        print("\n(sink: \(sinkValue % 1000))")
    }

    private func printGets() {
        let floor = median(FloorCases.unlocked)
        print("\n## Gets (ns per get, \(gets.first?.samples.count ?? 0) repetitions)\n")
        print("| case | median | min | max | ratio to floor | iterations |")
        print("|---|---:|---:|---:|---:|---:|")
        for row in gets {
            let ratio = floor.map { format(row.median / $0, 2) + "x" } ?? "-"
            print("| \(row.name) | \(format(row.median, 1)) | \(format(row.min, 1)) | \(format(row.max, 1)) | \(ratio) | \(row.iterations) |")
        }
    }

    private func printThreads() {
        let count = threads.first?.oneThread.count ?? 0
        print("\n## Threads (fixed work per thread; millions of gets per second, medians of \(count) repetitions)\n")
        print("2T/1T is the median over the repetitions of (2-thread throughput / 1-thread throughput), each pair run")
        print("back to back; \"by CPU time\" divides each thread's gets by its own CPU time instead of the wall clock,")
        print("so another process taking a core does not count, while contention between the two threads still does.")
        print("A run is repeated (up to \(HarnessConfig.full.threadTries) times) until each thread had a core; \"parallel\" is the median")
        print("CPU time of both threads over the wall time of the 2-thread runs (2.00: both ran all along).\n")
        print("| case | 1 thread | 2 threads | 2T/1T (wall) | / floor's | 2T/1T (CPU time) | / floor's | parallel | gets per thread |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for row in threads {
            let services = row.name.split(separator: "/").last.map(String.init) ?? ""
            let floor = threads.first { $0.name == ThreadCases.name("floor", services) }
            let relative = floor.map { format(row.ratio / $0.ratio, 2) + "x" } ?? "-"
            let cpuRelative = floor.map { format(row.cpuRatio / $0.cpuRatio, 2) + "x" } ?? "-"
            print("| \(row.name) | \(format(row.oneThread.median, 2)) | \(format(row.twoThreads.median, 2)) | \(format(row.ratio, 2))x | \(relative) | \(format(row.cpuRatio, 2))x | \(cpuRelative) | \(format(row.parallelism.median, 2)) | \(row.iterationsPerThread) |")
        }
    }

    private func printRegistration() {
        print("\n## Registration (fresh locator, N lazy slots, then setReadOnly; the floor: a fresh [String: AnyObject] of N new objects; heap = mallinfo2 in-use bytes)\n")
        print("| case | slots | ns per slot (median) | min | max | heap bytes per slot (median) | after every slot's first get |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for row in registration {
            print("| \(row.way) | \(row.slots) | \(format(row.nanosPerSlot.median, 1)) | \(format(row.nanosPerSlot.min() ?? .nan, 1)) | \(format(row.nanosPerSlot.max() ?? .nan, 1)) | \(format(row.bytesPerSlot.median, 0)) | \(format(row.bytesPerUsedSlot.median, 0)) |")
        }
        for way in [RegistrationCases.floor, RegistrationCases.oneByOne, RegistrationCases.module] {
            if let ratio = registrationRatio(way) { print("\n\(way): 100k/10k total time ratio \(format(ratio, 2))") }
        }
    }

    private func printStartup(_ result: StartupCases.Result) {
        let size = result.size
        print("\n## Start-up (\(size.plugins) plugin libraries x \(size.services) services, fresh copies each time, ms, \(result.host.count) repetitions)\n")
        printTimings([("startup/host: PluginHost().load([.directory])", result.host),
                      ("startup/bare: dlopen(RTLD_NOW \\| RTLD_LOCAL) + dlsym", result.bare),
                      ("startup/bare + entry(): also call the entry symbol", result.bareWithEntry)],
                     baseline: result.bare, digits: 2,
                     extra: [("per plugin (us)", { format($0.median * 1000 / Double(size.plugins), 0) })])
        let slots = Double(size.plugins * size.services)
        print("\nhost minus bare: \(format((result.host.median - result.bare.median) * 1_000_000 / slots, 0)) ns per slot")
    }

    /// A table of timings in ms, a row per contestant: median, min, max, the `extra` columns, and the
    /// ratio of its median to `baseline`'s ("ratio to bare").
    private func printTimings(_ rows: [(String, [Double])], baseline: [Double], digits: Int,
                              extra: [(title: String, value: ([Double]) -> String)]) {
        print("| case | median ms | min | max | \(extra.map(\.title).joined(separator: " | ")) | ratio to bare |")
        print("|---|---:|---:|---:|\(String(repeating: "---:|", count: extra.count))---:|")
        for (name, samples) in rows {
            let extras = extra.map { $0.value(samples) }.joined(separator: " | ")
            print("| \(name) | \(format(samples.median, digits)) | \(format(samples.min() ?? .nan, digits)) | \(format(samples.max() ?? .nan, digits)) | \(extras) | \(format(samples.median / baseline.median, 2))x |")
        }
    }

    private func printUpgrade(_ result: UpgradeCases.Result) {
        let size = result.size
        print("\n## Upgrades in a running host (one plugin of \(size.services) services, release library of \(format(Double(result.libraryBytes) / 1024, 0)) KiB; \(result.upgrade.count) upgrades, ms per call)\n")
        print("An upgrade renames a fresh copy of the library over the served path (not timed), then times `host.reload()`.")
        print("The three calls take turns, in rotating order.\n")
        printTimings([("upgrade/reload: a new file renamed over the plugin's path", result.upgrade),
                      ("upgrade/unchanged: reload with nothing changed", result.unchanged),
                      ("upgrade/bare: dlopen(RTLD_NOW \\| RTLD_LOCAL) + dlsym of a fresh copy", result.bare)],
                     baseline: result.bare, digits: 3,
                     extra: [("p90", { format($0.percentile(0.9), 3) }),
                             ("median of the first / last tenth", { samples in
                                 let tenth = max(1, samples.count / 10)
                                 return "\(format(Array(samples.prefix(tenth)).median, 3)) / \(format(Array(samples.suffix(tenth)).median, 3))"
                             })])

        let quiet = result.windows[.none] ?? [], spinning = result.windows[.spinning] ?? []
        let seconds = format(Double(size.windowNanos) / 1e9, 2)
        print("\n### Gets during upgrades (2 threads get one service through `host.locator`; \(quiet.count) rounds of \(seconds) s windows)\n")
        print("Each round runs the 2 getting threads three times: alone, beside a third thread that only spins (what any")
        print("third thread takes from them on 2 cores), and beside a third thread that upgrades back to back. \"per CPU-second\"")
        print("divides each thread's gets by its own CPU time, so the third thread taking a core does not lower it. Ratios")
        print("are medians over the rounds of (window / the same round's window of the kind named).\n")
        print("| third thread | gets/s (median) | min | max | / none | / spinning | gets per CPU-second (median) | / none | / spinning | upgrades per window (median) | ms per upgrade (median, p90) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        /// The median over the rounds of `measure` of `windows` over that of the same round's `baseline`.
        func ratio(_ windows: [UpgradeCases.Window], _ baseline: [UpgradeCases.Window], _ measure: (UpgradeCases.Window) -> Double) -> String {
            format(zip(windows, baseline).map { measure($0) / measure($1) }.median, 3) + "x"
        }
        for (third, label) in [(UpgradeCases.ThirdThread.none, "none"), (.spinning, "spinning"), (.upgrading, "upgrading back to back")] {
            let windows = result.windows[third] ?? []
            let wall = windows.map(\.getsPerSecond), cpu = windows.map(\.getsPerCPUSecond)
            let upgrades = windows.flatMap(\.upgrades)
            let timing = upgrades.isEmpty ? "-" : "\(format(upgrades.median, 3)), \(format(upgrades.percentile(0.9), 3))"
            print("| \(label) | \(format(wall.median, 0)) | \(format(wall.min() ?? .nan, 0)) | \(format(wall.max() ?? .nan, 0)) | \(ratio(windows, quiet, \.getsPerSecond)) | \(ratio(windows, spinning, \.getsPerSecond)) | \(format(cpu.median, 0)) | \(ratio(windows, quiet, \.getsPerCPUSecond)) | \(ratio(windows, spinning, \.getsPerCPUSecond)) | \(format(windows.map { Double($0.upgrades.count) }.median, 0)) | \(timing) |")
        }
        let gets = result.windows.values.joined().reduce(0) { $0 + $1.gets }
        print("\nfailed gets (nil, or not the service's value): \(result.failedGets) of \(gets)")

        print("\n### Memory per image mapped (VmRSS and RssAnon from /proc/self/status, KiB; heap: mallinfo2 in-use bytes)\n")
        print("| what | images | VmRSS per image | RssAnon per image | heap bytes per image |")
        print("|---|---:|---:|---:|---:|")
        for (name, memory, images) in [("upgrade/reload, the timed calls", result.upgradeMemory, result.upgrade.count),
                                       ("upgrade/bare, the timed calls", result.bareMemory, result.bare.count),
                                       ("the get windows from start to end (their upgrades)", result.windowMemory, result.windowImages)] {
            let count = Double(max(images, 1))
            print("| \(name) | \(images) | \(format(Double(memory.resident) / count, 1)) | \(format(Double(memory.anonymous) / count, 1)) | \(format(Double(memory.heap) / count, 0)) |")
        }
        print("\nplugin images the host has mapped at the end (every case of this run): \(result.imagesMapped)")
    }

    // MARK: Targets

    struct Target {
        let name: String
        let measured: String
        let pass: Bool
    }

    func targets() -> [Target] {
        var list: [Target] = []
        let floor = median(FloorCases.unlocked)
        let swinject = median(SwinjectCases.containerScope)
        for mode in ["atOne", "lazy", "weak"] {
            if let floor, let get = median(LocatorCases.name("readOnly", mode)) {
                list.append(Target(name: "read-only get (\(mode)) <= 1.0x unlocked floor",
                                   measured: format(get / floor, 2) + "x", pass: get <= floor))
            }
        }
        if let floor = median(ConcreteCases.floorName), let get = median(ConcreteCases.locatorName) {
            list.append(Target(name: "read-only get of a final class <= 1.0x its floor (dictionary and cast to the class)",
                               measured: format(get / floor, 2) + "x", pass: get <= floor))
        }
        for mode in ["atOne", "lazy", "weak"] {
            if let swinject, let get = median(LocatorCases.name("readOnly", mode)) {
                list.append(Target(name: "read-only get (\(mode)) >= 15x faster than Swinject .container",
                                   measured: format(swinject / get, 1) + "x faster", pass: swinject / get >= 15))
            }
        }
        for mode in ["atOne", "lazy", "weak"] {
            if let floor, let get = median(LocatorCases.name("mutable", mode)) {
                list.append(Target(name: "mutable get (\(mode)) <= 2x unlocked floor",
                                   measured: format(get / floor, 2) + "x", pass: get <= 2 * floor))
            }
        }
        for services in ["same", "different"] {
            if let floor = threadRatio(ThreadCases.name("floor", services)),
               let locator = threadRatio(ThreadCases.name("locator-readOnly", services)) {
                list.append(Target(
                    name: "2 threads, read-only locator, \(services) service(s): 2T/1T ratio >= 0.9x the floor's",
                    measured: "\(format(locator, 2)) vs floor \(format(floor, 2)): \(format(locator / floor, 3))x",
                    pass: locator >= 0.9 * floor))
            }
        }
        for way in [RegistrationCases.oneByOne, RegistrationCases.module] {
            if let ratio = registrationRatio(way) {
                let floor = registrationRatio(RegistrationCases.floor).map { " (floor's: \(format($0, 2)))" } ?? ""
                list.append(Target(name: "\(way): linear, 100k/10k time ratio <= 12", measured: format(ratio, 2) + floor,
                                   pass: ratio <= 12))
            }
            if let bytes = registration.first(where: { $0.way == way && $0.slots == RegistrationCases.sizes.last })?.bytesPerSlot.median {
                list.append(Target(name: "\(way): <= 256 bytes per slot (100k slots)", measured: format(bytes, 0) + " B", pass: bytes <= 256))
            }
        }
        if let startup {
            list.append(Target(name: "start-up <= 1.3x bare dlopen + dlsym (\(startup.size.plugins) x \(startup.size.services))",
                               measured: format(startup.ratio, 2) + "x", pass: startup.ratio <= 1.3))
        }
        return list
    }

    private func median(_ name: String) -> Double? {
        gets.first { $0.name == name }?.median
    }

    private func threadRatio(_ name: String) -> Double? {
        threads.first { $0.name == name }?.ratio
    }

    /// Total time for 100k slots over total time for 10k.
    private func registrationRatio(_ way: String) -> Double? {
        guard let small = registration.first(where: { $0.way == way && $0.slots == 10_000 }),
              let large = registration.first(where: { $0.way == way && $0.slots == 100_000 }) else { return nil }
        return large.nanosPerSlot.median * 100_000 / (small.nanosPerSlot.median * 10_000)
    }
}

/// What the machine is, for the report's header.
enum Machine {
    static func describe(quick: Bool) -> String {
        let cpu = firstValue(in: "/proc/cpuinfo", key: "model name") ?? "unknown CPU"
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let load = readText("/proc/loadavg")?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        #if DEBUG
        let build = "debug build (numbers are meaningless: use -c release)"
        #else
        let build = "release build"
        #endif
        return "\(cores) cores, \(cpu); \(build)\(quick ? ", --quick (few iterations: smoke test, not a measurement)" : ""); load average at the end: \(load)"
    }

    private static func firstValue(in path: String, key: String) -> String? {
        guard let text = readText(path) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingPrefix(" ").description
            }
        }
        return nil
    }

    static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `value` with `digits` decimals.
func format(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    if digits == 0 { return String(Int(rounded)) }
    let whole = Int(rounded.magnitude)
    let fraction = Int(((rounded.magnitude - Double(whole)) * scale).rounded())
    let padded = String(repeating: "0", count: max(0, digits - String(fraction).count)) + String(fraction)
    return (rounded < 0 ? "-" : "") + "\(whole).\(padded)"
}
