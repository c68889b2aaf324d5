import Glibc

// A second process of this benchmark (the call cases' peer): it does only that.
if CommandLine.arguments.dropFirst().first == "--peer" {
    PeerRoles.run(Array(CommandLine.arguments.dropFirst(2)))
}

/// locator-benchmarks [--quick] [--filter NAME] [--plugins N] [--services N] [--upgrades N] [--repetitions N] [--iterations N]
let usage = """
    usage: locator-benchmarks [--quick] [--filter NAME] [--plugins N] [--services N] [--upgrades N]
                              [--repetitions N] [--iterations N]
      --quick           few iterations, a small start-up (5 x 20) and few upgrades: a smoke test for CI
      --filter NAME     only the cases whose name contains NAME (any case: floor, locator/readOnly/atOne,
                        threads, registration, startup, upgrade, calls, own-process, ...)
      --plugins N       start-up: number of plugin libraries (default 50, quick 5)
      --services N      services per plugin: start-up (default 200, quick 20) and upgrade (default 20)
      --upgrades N      upgrade: upgrades timed (default 100, quick 5)
      --repetitions N   repetitions of every case (default 11 for gets, 7 elsewhere; quick 5; at least 5)
      --iterations N    fixed iterations per repetition instead of timed ones (for valgrind); calls: N
                        sequential calls per round and one call per task in flight
      --slots N         registration: only this many slots (default: 1000, 10000 and 100000)
    """

/// What the command line asked for.
struct Options {
    var quick = false
    var filter = CaseFilter(pattern: nil)
    var plugins: Int?
    var services: Int?
    var upgrades: Int?
    var repetitions: Int?
    var iterations: Int?
    var slots: Int?

    /// Parses the arguments; exits with status 2 and the usage on a mistake.
    static func parse(_ list: [String]) -> Options {
        var options = Options()
        var arguments = list[...]
        func usageError(_ message: String) -> Never {
            printError("\(message)\n\(usage)")
            exit(2)
        }
        func number(after flag: String) -> Int {
            guard let text = arguments.popFirst(), let value = Int(text), value > 0 else {
                usageError("\(flag) needs a positive number")
            }
            return value
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--quick": options.quick = true
            case "--filter":
                guard let pattern = arguments.popFirst() else { usageError("--filter needs a name") }
                options.filter = CaseFilter(pattern: pattern)
            case "--plugins": options.plugins = number(after: argument)
            case "--services": options.services = number(after: argument)
            case "--upgrades": options.upgrades = number(after: argument)
            case "--repetitions": options.repetitions = max(5, number(after: argument))
            case "--iterations": options.iterations = number(after: argument)
            case "--slots": options.slots = number(after: argument)
            case "--help", "-h": print(usage); exit(0)
            default: usageError("unknown argument \(argument)")
            }
        }
        return options
    }
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let quick = options.quick
let filter = options.filter

var getConfig = quick ? HarnessConfig.quick : .full
getConfig.repetitions = options.repetitions ?? getConfig.repetitions
getConfig.fixedIterations = options.iterations
var otherConfig = getConfig
otherConfig.repetitions = options.repetitions ?? (quick ? 5 : 7)

func progress(_ text: String) {
    printError(text)
}

var report = Report()

let getCases = FloorCases.cases() + LocatorCases.cases() + SwinjectCases.cases() + ConcreteCases.cases() + DependenciesCases.cases()
for benchCase in getCases where filter.admits(benchCase.name) {
    let result = measure(benchCase, getConfig)
    progress("\(benchCase.name): \(format(result.median, 1)) ns")
    report.gets.append(result)
}

report.threads = ThreadCases.measureAll(ThreadCases.scenarios().filter { filter.admits($0.name) }, otherConfig)
for result in report.threads {
    progress("\(result.name): 2T/1T \(format(result.ratio, 2))x")
}

report.registration = RegistrationCases.run(otherConfig, sizes: options.slots.map { [$0] } ?? RegistrationCases.sizes,
                                           filter: filter)
for row in report.registration {
    progress("\(row.way) \(row.slots): \(format(row.nanosPerSlot.median, 0)) ns, \(format(row.bytesPerSlot.median, 0)) B per slot")
}

if filter.admits(StartupCases.name) {
    let size = StartupCases.Size(plugins: options.plugins ?? (quick ? 5 : 50), services: options.services ?? (quick ? 20 : 200))
    let result = StartupCases.run(size, repetitions: otherConfig.repetitions)
    progress("startup: host \(format(result.host.median, 1)) ms, bare \(format(result.bare.median, 1)) ms")
    report.startup = result
}

if filter.admits(UpgradeCases.name) {
    // Quick: a few upgrades and one short round of get windows, so that CI runs every step.
    let size = UpgradeCases.Size(services: options.services ?? 20, upgrades: options.upgrades ?? (quick ? 5 : 100),
                                 windowNanos: quick ? 100_000_000 : 1_000_000_000, windowRounds: quick ? 1 : 5)
    let result = UpgradeCases.run(size)
    progress("upgrade: \(format(result.upgrade.median, 2)) ms per upgrade, bare \(format(result.bare.median, 2)) ms; failed gets: \(result.failedGets)")
    report.upgrade = result
}

if filter.admits(CallCases.name) {
    // --iterations (for valgrind): that many sequential calls per round, and one call per task in flight.
    let size = CallCases.Size(rounds: options.repetitions ?? (quick ? 2 : 5), roundTrips: options.iterations ?? (quick ? 300 : 20_000),
                              callsPerTask: options.iterations.map { _ in 1 } ?? (quick ? 30 : 2_000),
                              payloadRepetitions: options.iterations.map { _ in 1 } ?? (quick ? 2 : 9))
    let result = CallCases.run(size)
    progress("calls: p50 \(format(result.call.map(\.p50).median, 1)) us against the floor's \(format(result.floor.map(\.p50).median, 1)) us; \(format(result.inFlight.median, 0)) calls/s with \(CallCases.tasksInFlight) in flight")
    report.calls = result
}

report.printAll(quick: quick)
// After the report, so that it shows the count: a get that fails during an upgrade is a bug, not noise.
if let upgrade = report.upgrade, upgrade.failedGets > 0 {
    fail("upgrade: \(upgrade.failedGets) gets failed while plugins were upgraded (see the report)")
}

// Last, with its own section and targets, after the report is out. In `--quick` (CI's smoke run) it is
// the test of a release build of both sides of a plugin's process: the host and `plugin-process`.
if filter.admits(OwnProcessCases.name) {
    fflush(nil)
    let result = OwnProcessCases.run(OwnProcessCases.Size(startups: quick ? 2 : 15, crashes: quick ? 1 : 5, pings: quick ? 200 : 5_000), getConfig: getConfig)
    progress("own-process: start-up \(format(result.startup.median, 2)) ms, crash to error \(format(result.crashToError.median, 2)) ms")
    Report(ownProcess: result).printOwnProcessPart()
}
