import Foundation
@testable import HostKit
import TestSupport
import Testing

// A randomized differential test of reload: seeded sequences of deployments into a folder that a
// host serves (files added, removed, renamed over, written into, broken; a provider and its user
// together; a requirement dropped or added), each followed by a reload. After each, the plugins the
// host serves must be those a fresh host serves from the same files, except where the reload report
// says a plugin was kept (its new version refused, or required though its file is gone) or a new
// plugin was refused for a key a plugin serving on holds: then the fresh host loads the files with
// that exception made (the served version's file in place of the new one), and each exception must
// be needed (without it, the fresh load would refuse the new version or lose another plugin). The
// report must say what changed: each plugin's served version moves only by an entry that says so.
//
// Replaying a failure: the failure names the sequence's seed. Run
//     RELOAD_SEED=<seed> swift test --filter ReloadDifferentialTests
// and that seed is the first sequence run (sequence i runs seed RELOAD_SEED + i). Without
// RELOAD_SEED the seeds start at `ReloadDifferentialTests.defaultSeed`, so every run tests the same
// sequences.

/// xorshift64*: a tiny, seeded, deterministic generator (no system randomness).
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}

/// One change an operator makes to the plugins folder.
enum Deployment: CustomStringConvertible {
    /// A built product installed as a new file.
    case add(file: String, product: String)
    /// A built product written beside the file and renamed over it (`install`, `mv`).
    case renameOver(file: String, product: String)
    /// The file's own bytes written into it again (`cp` over a served file: the host maps copies, so
    /// the served image never reads the file again).
    case copyOver(file: String)
    case remove(file: String)

    var description: String {
        switch self {
        case let .add(file, product): "add \(file) = \(product)"
        case let .renameOver(file, product): "mv \(product) over \(file)"
        case let .copyOver(file): "cp over \(file)"
        case let .remove(file): "rm \(file)"
        }
    }
}

/// Makes one sequence of deployments from a seed, knowing which files are there.
struct DeploymentGenerator {
    /// The files a sequence deploys to, each with the products it may hold: one plugin's versions
    /// (a file holds one plugin name, or a broken file).
    static let families: [String: [String]] = [
        "libprovider.so": ["FixtureProvider"],
        "libuser.so": ["FixtureVersionUser", "FixtureVersionUserTwo", "FixtureVersionUserThree"],
        "libversioned.so": ["FixtureVersionOne", "FixtureVersionTwo", "FixtureVersionThree", "FixtureVersionFour", "FixtureVersionFive"],
        "libversioned-2.so": ["FixtureVersionOne", "FixtureVersionTwo", "FixtureVersionThree"],
    ]
    static let broken = "FixtureBadMagic"

    private var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// The files of a first load.
    mutating func initial() -> [String: String] {
        var files: [String: String] = [:]
        for (file, products) in Self.families.sorted(by: { $0.key < $1.key }) where random.chance(60) {
            files[file] = products.randomElement(using: &random)
        }
        return files
    }

    /// One deployment (one to three changes made before one reload) to the folder holding `present`.
    mutating func deployment(present: Set<String>) -> [Deployment] {
        if random.chance(12) {
            // A new provider and a user that now requires it, together.
            return [present.contains("libprovider.so") ? .renameOver(file: "libprovider.so", product: "FixtureProvider")
                        : .add(file: "libprovider.so", product: "FixtureProvider"),
                    present.contains("libuser.so") ? .renameOver(file: "libuser.so", product: "FixtureVersionUserThree")
                        : .add(file: "libuser.so", product: "FixtureVersionUserThree")]
        }
        if random.chance(8), present.contains("libprovider.so"), present.contains("libuser.so") {
            // The provider removed while its user drops the requirement.
            return [.remove(file: "libprovider.so"), .renameOver(file: "libuser.so", product: "FixtureVersionUserTwo")]
        }
        var present = present
        var changes: [Deployment] = []
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            let files = Self.families.keys.sorted()
            let file = files[Int.random(in: 0..<files.count, using: &random)]
            let product = random.chance(12) ? Self.broken : Self.families[file]?.randomElement(using: &random) ?? Self.broken
            guard present.contains(file) else {
                changes.append(.add(file: file, product: product))
                present.insert(file)
                continue
            }
            switch Int.random(in: 0..<100, using: &random) {
            case ..<25:
                changes.append(.remove(file: file))
                present.remove(file)
            case ..<85: changes.append(.renameOver(file: file, product: product))
            default: changes.append(.copyOver(file: file))
            }
        }
        return changes
    }
}

/// What a host serves, by plugin name: version and file name.
struct Served: Equatable, CustomStringConvertible {
    var plugins: [String: String] = [:]

    init(_ loaded: [LoadedPlugin]) {
        for plugin in loaded {
            plugins[plugin.metadata.name] = "\(plugin.metadata.version) \(URL(fileURLWithPath: plugin.path).lastPathComponent)"
        }
    }

    var description: String {
        plugins.isEmpty ? "nothing" : plugins.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

/// The folder a host serves, and a hard link to every file ever deployed into it, so that a served
/// version's file can be laid into another folder after its name was taken over.
final class DeployedFolder {
    let live: TemporaryFolder
    private let keep: TemporaryFolder
    private var serial = 0
    /// The file in `keep` each file name of `live` is.
    private(set) var keeperOf: [String: String] = [:]
    /// The file in `keep` each served plugin's version came from.
    var servedKeeper: [String: String] = [:]

    init() throws {
        live = try TemporaryFolder()
        keep = try TemporaryFolder()
    }

    var present: Set<String> { Set(keeperOf.keys) }

    func apply(_ deployment: Deployment) throws {
        switch deployment {
        case let .add(file, product), let .renameOver(file, product):
            try live.install(product, as: file)
            serial += 1
            let keeper = keep.file("\(serial)")
            guard link(live.file(file), keeper) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            keeperOf[file] = keeper
        case let .copyOver(file):
            let path = live.file(file)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // A time the file system can tell from the last write.
            Thread.sleep(forTimeInterval: 0.01)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.write(contentsOf: bytes)
            try handle.close()
        case let .remove(file):
            try FileManager.default.removeItem(atPath: live.file(file))
            keeperOf[file] = nil
        }
    }

    /// A new folder with the files of `live` (hard links: the same files), but `left` out, and the
    /// files of `laid` (file name to keeper) laid in.
    func mirror(leaving left: Set<String>, laying laid: [String: String]) throws -> TemporaryFolder {
        let mirror = try TemporaryFolder()
        for (file, keeper) in keeperOf where !left.contains(file) && laid[file] == nil {
            guard link(keeper, mirror.file(file)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        for (file, keeper) in laid {
            guard link(keeper, mirror.file(file)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        return mirror
    }
}

/// Runs sequences of deployments and reloads, and says where a reload and a fresh load disagree.
struct ReloadDifferential {
    /// The plugins a fresh host serves from `folder` (started not: nothing of theirs runs), and its report.
    static func freshLoad(_ folder: String) -> (served: Served, report: LoadReport) {
        let host = PluginHost()
        let report = host.load([.directory(folder)], start: false)
        return (Served(host.state.withLock(\.published)), report)
    }

    /// Errors about how plugins fit together, not about one file.
    static func isAboutThePlan(_ error: PluginLoadError) -> Bool {
        switch error {
        case .duplicatePlugin, .keyConflict, .missingRequirement, .requirementCycle, .stillRequired, .malformedMetadata,
             .registrationFailed, .startFailed, .requirementTypeMismatch: true
        default: false
        }
    }

    /// Runs the sequence of `seed`, `steps` reloads long; what went wrong, or nil. The actions its
    /// reports name go into `actions`.
    func check(seed: UInt64, steps: Int, actions: inout Set<ReloadReport.Action>) throws -> String? {
        var generator = DeploymentGenerator(seed: seed)
        let folder = try DeployedFolder()
        var log: [String] = []
        let initial = generator.initial()
        for (file, product) in initial.sorted(by: { $0.key < $1.key }) {
            let deployment = Deployment.add(file: file, product: product)
            try folder.apply(deployment)
            log.append("load: \(deployment)")
        }
        let host = PluginHost()
        host.load([.directory(folder.live.path)])
        for plugin in host.state.withLock(\.published) {
            folder.servedKeeper[plugin.metadata.name] = folder.keeperOf[URL(fileURLWithPath: plugin.path).lastPathComponent]
        }
        for step in 1...steps {
            let deployment = generator.deployment(present: folder.present)
            for change in deployment { try folder.apply(change) }
            log.append("\(step). " + deployment.map(\.description).joined(separator: "; "))
            let before = host.state.withLock(\.published)
            let report = host.reload(drainTimeout: .seconds(5))
            actions.formUnion(report.entries.map(\.action))
            let after = host.state.withLock(\.published)
            let problems = try compare(before: before, after: after, report: report, folder: folder)
            if !problems.isEmpty {
                return """
                reload and fresh load disagree: seed \(seed), step \(step) \
                (replay: RELOAD_SEED=\(seed) swift test --filter ReloadDifferentialTests)
                deployments:
                \(log.map { "  " + $0 }.joined(separator: "\n"))
                reload report:
                \(report.lines.map { "  " + $0 }.joined(separator: "\n"))
                served before: \(Served(before))
                \(problems.joined(separator: "\n"))
                """
            }
            for entry in report.entries where entry.action == .added || entry.action == .upgraded {
                folder.servedKeeper[entry.plugin] = folder.keeperOf[URL(fileURLWithPath: entry.path).lastPathComponent]
            }
            for entry in report.entries(.withdrawn) { folder.servedKeeper[entry.plugin] = nil }
        }
        return nil
    }

    /// What is wrong with one reload, judged against fresh loads of the files found.
    private func compare(before: [LoadedPlugin], after: [LoadedPlugin], report: ReloadReport,
                         folder: DeployedFolder) throws -> [String] {
        var problems: [String] = []
        let (served, servedBefore) = (Served(after), Served(before))
        let fresh = Self.freshLoad(folder.live.path)
        // The report says what changed.
        for name in Set(servedBefore.plugins.keys).union(served.plugins.keys) {
            let (was, now) = (servedBefore.plugins[name], served.plugins[name])
            let change = report.entries.last { $0.plugin == name && [.added, .upgraded, .withdrawn].contains($0.action) }
            let said: String? = switch change?.action {
            case .added?, .upgraded?: "\(change?.version ?? "?") \(URL(fileURLWithPath: change?.path ?? "").lastPathComponent)"
            case .withdrawn?: nil
            default: was
            }
            if now != said { problems.append("\(name): serves \(now ?? "nothing") (was \(was ?? "nothing")), the report says \(said ?? "nothing")") }
        }
        // The exceptions to a fresh load: each kept plugin's served file laid in place of the files of
        // its new version; a new plugin refused for a key a plugin serving on holds left out.
        let filesOf = { (name: String) in
            Set(fresh.report.entries.filter { $0.metadata?.name == name }.map { URL(fileURLWithPath: $0.path).lastPathComponent })
        }
        // Files a fresh load refuses for themselves: left out of every folder made from this one
        // (a link to a file the host opened before is the same file).
        let refusedFiles = Set(fresh.report.problems.filter { !Self.isAboutThePlan($0) }
            .map { URL(fileURLWithPath: $0.subject).lastPathComponent })
        var laid: [String: [String: String]] = [:]
        var left: [String: Set<String>] = [:]
        for entry in report.entries(.kept) {
            guard let keeper = folder.servedKeeper[entry.plugin], let file = servedBefore.plugins[entry.plugin]?.split(separator: " ").last else {
                problems.append("kept \(entry.plugin), which was not served")
                continue
            }
            if served.plugins[entry.plugin] != servedBefore.plugins[entry.plugin] {
                problems.append("kept \(entry.plugin), which serves \(served.plugins[entry.plugin] ?? "nothing") now")
            }
            laid[entry.plugin] = [String(file): keeper]
            left[entry.plugin] = filesOf(entry.plugin)
        }
        for entry in report.entries(.refused) {
            guard case let .keyConflict(_, _, holder)? = entry.error, served.plugins[holder] != nil,
                  servedBefore.plugins[holder] != nil else { continue }
            left[entry.plugin] = filesOf(entry.plugin)
        }
        func mirrorLoad(except: String?) throws -> Served {
            let lay = laid.filter { $0.key != except }.values.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
            let leave = left.filter { $0.key != except }.values.reduce(refusedFiles) { $0.union($1) }
            let mirror = try folder.mirror(leaving: leave, laying: lay)
            return Self.freshLoad(mirror.path).served
        }
        let expected = try laid.isEmpty && left.isEmpty ? fresh.served : mirrorLoad(except: nil)
        if served != expected {
            problems.append("served: \(served)\nexpected (a fresh load, with the report's exceptions): \(expected)")
        }
        // Each exception is needed: a file refused for itself, or without it the fresh load refuses
        // the new version or loses another plugin.
        for entry in report.entries(.kept) + report.entries(.refused) where left[entry.plugin] != nil {
            if let error = entry.error, !Self.isAboutThePlan(error) {
                if !fresh.report.problems.contains(error) { problems.append("\(entry.summary): a fresh load does not refuse it so") }
                continue
            }
            if case .duplicatePlugin? = entry.error, fresh.report.problems.contains(where: {
                if case let .duplicatePlugin(name, _, _) = $0 { name == entry.plugin } else { false }
            }) { continue }
            let without = try mirrorLoad(except: entry.plugin)
            let lost = expected.plugins.filter { $0.key != entry.plugin && without.plugins[$0.key] != $0.value }
            if without.plugins[entry.plugin] != nil && lost.isEmpty {
                problems.append("\(entry.summary): not needed, a fresh load without it serves \(without)")
            }
        }
        return problems
    }
}

@Suite struct ReloadDifferentialTests {
    static let defaultSeed: UInt64 = 0x5EED_0100
    private let sequences = 10
    private let steps = 15

    /// The first seed: `RELOAD_SEED` from the environment (decimal or 0x-hex), else ``defaultSeed``.
    private var seedBase: UInt64 {
        guard let text = ProcessInfo.processInfo.environment["RELOAD_SEED"] else { return Self.defaultSeed }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        return parsed ?? Self.defaultSeed
    }

    @Test func aReloadEndsWhereAFreshLoadOfTheSameFilesWould() throws {
        let differential = ReloadDifferential()
        var actions: Set<ReloadReport.Action> = []
        for index in 0..<UInt64(sequences) {
            if let failure = try differential.check(seed: seedBase &+ index, steps: steps, actions: &actions) {
                Issue.record("\(failure)")
                return
            }
        }
        // The sequences made each kind of change, and each kind of exception.
        if ProcessInfo.processInfo.environment["RELOAD_SEED"] == nil {
            #expect(actions == [.added, .upgraded, .restarted, .withdrawn, .kept, .refused], "\(actions)")
        }
    }
}
