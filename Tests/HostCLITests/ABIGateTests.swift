import Foundation
import TestSupport
import Testing

/// `abi-gate`, the tool behind `swift package check-abi` and `.ci/api-check`, on a real contract
/// library: compiled with `swiftc -enable-library-evolution` against the built PluginAPI, its baseline
/// written by the gate itself (`--update`), then changed, compiled again and checked. A break needs a
/// new major version, an addition a new minor one, and a version never goes down.
@Suite struct ABIGateTests {
    /// The gate `swift build` / `swift test` built beside the test bundle.
    private static let gate = "\(BuiltPlugins.directory)/abi-gate"

    /// A contract library's sources: `Forecaster` with `requirements` beside `today()`, `declarations`
    /// after it, and the library's version.
    private static func contracts(version: (Int, Int, Int), requirements: String = "", declarations: String = "") -> String {
        """
        import PluginAPI

        /// A service the plugins share.
        public protocol Forecaster: Sendable {
            /// Today's forecast.
            func today() -> String
            \(requirements)
        }
        \(declarations)

        extension LibraryVersion {
            /// GateContracts' version.
            @_alwaysEmitIntoClient
            public static var gateContracts: LibraryVersion { LibraryVersion("GateContracts", \(version.0), \(version.1), \(version.2)) }
        }
        """
    }

    /// A temporary folder for one test, removed at its end.
    private final class Workspace: Sendable {
        let root: URL

        init() throws {
            root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("abi-gate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        /// Writes `source` as GateContracts' sources under `name/Sources` and compiles it into `name/Modules`
        /// (beside links to the built PluginAPI's module, which it imports). Returns both folders.
        func build(_ name: String, _ source: String) async throws -> (sources: URL, modules: URL) {
            let files = FileManager.default
            let sources = root.appendingPathComponent("\(name)/Sources"), modules = root.appendingPathComponent("\(name)/Modules")
            try files.createDirectory(at: sources, withIntermediateDirectories: true)
            try files.createDirectory(at: modules, withIntermediateDirectories: true)
            try source.write(to: sources.appendingPathComponent("GateContracts.swift"), atomically: true, encoding: .utf8)
            for file in ["PluginAPI.swiftmodule", "PluginAPI.swiftinterface"]
            where !files.fileExists(atPath: modules.appendingPathComponent(file).path) {
                try files.createSymbolicLink(atPath: modules.appendingPathComponent(file).path,
                                             withDestinationPath: "\(BuiltPlugins.directory)/Modules/\(file)")
            }
            let compile = try await runBuild("/usr/bin/env", [
                "swiftc", "-emit-module", "-enable-library-evolution", "-emit-module-interface", "-parse-as-library",
                "-swift-version", "6", "-module-name", "GateContracts", "-I", modules.path,
                "-emit-module-path", modules.appendingPathComponent("GateContracts.swiftmodule").path,
                "-emit-module-interface-path", modules.appendingPathComponent("GateContracts.swiftinterface").path,
                sources.appendingPathComponent("GateContracts.swift").path,
            ], in: root, log: root)
            try #require(compile.status == 0, "\(compile.output)")
            return (sources, modules)
        }

        /// Runs the gate on GateContracts as `build` left it, with `options` after its module, sources and modules.
        func gate(_ built: (sources: URL, modules: URL), _ options: [String]) async throws -> (status: Int32, output: String) {
            try await runChild(ABIGateTests.gate, ["GateContracts", "--modules", built.modules.path, "--sources", built.sources.path]
                + options, in: root, log: root)
        }

        /// Builds `release` and writes its baseline into `baseline/`; then builds `now` and checks it against that.
        func check(_ now: String, against release: String) async throws -> (status: Int32, output: String) {
            let baseline = try await gate(try await build("release", release), ["--baseline", "baseline", "--update"])
            try #require(baseline.status == 0, "\(baseline.output)")
            try #require(baseline.output.contains("wrote baseline/GateContracts.abi.json and baseline/GateContracts.version"),
                         "\(baseline.output)")
            return try await gate(try await build("now", now), ["--baseline", "baseline"])
        }
    }

    private static let tomorrow = "func tomorrow() -> String"
    private static let requirementAdded = "break: Func Forecaster.tomorrow() has been added as a protocol requirement"

    @Test func aRequirementAddedWithoutADefaultUnderAMinorBumpFailsNamingIt() async throws {
        let work = try Workspace()
        let result = try await work.check(Self.contracts(version: (1, 1, 0), requirements: Self.tomorrow),
                                          against: Self.contracts(version: (1, 0, 0)))
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("GateContracts 1.1.0, against baseline/GateContracts.abi.json (1.0.0):"), "\(result.output)")
        #expect(result.output.contains(Self.requirementAdded), "\(result.output)")
        #expect(result.output.contains("FAILED: the ABI broke and the major version did not change"), "\(result.output)")
        #expect(result.output.contains(#"bump the major version: LibraryVersion("GateContracts", 2, 0, 0)"#), "\(result.output)")
    }

    @Test func aRequirementAddedWithoutADefaultUnderAMajorBumpPasses() async throws {
        let work = try Workspace()
        let result = try await work.check(Self.contracts(version: (2, 0, 0), requirements: Self.tomorrow),
                                          against: Self.contracts(version: (1, 0, 0)))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(Self.requirementAdded), "the break is listed even when allowed: \(result.output)")
        #expect(result.output.contains("ok: the ABI changed as 2.0.0 allows"), "\(result.output)")
    }

    @Test func aRequirementAddedWithADefaultIsAnAdditionNotABreak() async throws {
        let work = try Workspace()
        let result = try await work.check(
            Self.contracts(version: (1, 1, 0), requirements: Self.tomorrow,
                           declarations: #"extension Forecaster { public func tomorrow() -> String { "unknown" } }"#),
            against: Self.contracts(version: (1, 0, 0)))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("added: Func Forecaster.tomorrow() is a new API"), "\(result.output)")
        #expect(!result.output.contains("break:"), "\(result.output)")
    }

    /// A requirement whose only default is in a constrained extension: an old conformer that is not
    /// Equatable gets no witness, and a call through the requirement jumps to address 0. The digester
    /// calls it an addition (it has a default of its name); the gate calls it a break.
    @Test func aRequirementWhoseOnlyDefaultIsConstrainedIsABreak() async throws {
        let work = try Workspace()
        let constrained = #"extension Forecaster where Self: Equatable { public func tomorrow() -> String { "unknown" } }"#
        let result = try await work.check(Self.contracts(version: (1, 1, 0), requirements: Self.tomorrow, declarations: constrained),
                                          against: Self.contracts(version: (1, 0, 0)))
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("break: Func Forecaster.tomorrow() has been added as a protocol requirement whose default"
                                       + " implementation is not for every conformer"), "\(result.output)")
        #expect(!result.output.contains("added: Func Forecaster.tomorrow()"), "\(result.output)")
        #expect(result.output.contains("FAILED: the ABI broke and the major version did not change"), "\(result.output)")
    }

    /// `--update` over a baseline folder holding a release's version but not its ABI (or the other way
    /// round) is half a baseline: no verdict (exit 2) and nothing written, never "no baseline" (which
    /// wrote a first baseline at a lower version). A check says the same.
    @Test(arguments: ["GateContracts.abi.json", "GateContracts.version"])
    func halfABaselineIsAnErrorNeverNoBaseline(_ removed: String) async throws {
        let work = try Workspace()
        _ = try await work.check(Self.contracts(version: (2, 0, 0)), against: Self.contracts(version: (2, 0, 0)))
        let baseline = work.root.appendingPathComponent("baseline")
        try FileManager.default.removeItem(at: baseline.appendingPathComponent(removed))
        let left = try FileManager.default.contentsOfDirectory(atPath: baseline.path).sorted()
        let now = try await work.build("now", Self.contracts(version: (1, 0, 0)))
        for options in [["--baseline", "baseline", "--update"], ["--baseline", "baseline"]] {
            let result = try await work.gate(now, options)
            #expect(result.status == 2, "\(options): \(result.output)")
            #expect(result.output.contains("cannot compare GateContracts: half a baseline (baseline/"), "\(options): \(result.output)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: baseline.path).sorted() == left, "\(options) wrote into the baseline")
        }
    }

    /// A public function added: at 1.0.1 (no new minor) the gate fails, at 1.1.0 it passes; both list it.
    @Test(arguments: [(1, 0, 1), (1, 1, 0)])
    func anAddedFunctionNeedsAMinorBump(version: (Int, Int, Int)) async throws {
        let work = try Workspace()
        let result = try await work.check(Self.contracts(version: version, declarations: #"public func outlook() -> String { "fair" }"#),
                                          against: Self.contracts(version: (1, 0, 0)))
        #expect(result.output.contains("added: Func outlook() is a new API without '@available'"), "\(result.output)")
        if version.1 == 0 {
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains("FAILED: declarations were added and the minor version did not change"), "\(result.output)")
            #expect(result.output.contains(#"Bump the minor version: LibraryVersion("GateContracts", 1, 1, 0)"#), "\(result.output)")
        } else {
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("ok: the ABI changed as 1.1.0 allows"), "\(result.output)")
        }
    }

    @Test func aVersionGoingDownFails() async throws {
        let work = try Workspace()
        let result = try await work.check(Self.contracts(version: (1, 2, 0)), against: Self.contracts(version: (1, 3, 0)))
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("FAILED: the version went down, from 1.3.0 (the baseline) to 1.2.0"), "\(result.output)")
    }

    @Test func anUnchangedLibraryPasses() async throws {
        let work = try Workspace()
        let result = try await work.check(Self.contracts(version: (1, 0, 0)), against: Self.contracts(version: (1, 0, 0)))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("GateContracts 1.0.0, against baseline/GateContracts.abi.json (1.0.0):\nok: no ABI change."),
                "\(result.output)")
    }

    /// `--update` at a release that breaks the rule writes nothing: the baseline stays the last release's.
    @Test func updateWritesNoBaselineOverABreak() async throws {
        let work = try Workspace()
        let broken = try await work.check(Self.contracts(version: (1, 1, 0), requirements: Self.tomorrow),
                                          against: Self.contracts(version: (1, 0, 0)))
        #expect(broken.status == 1, "\(broken.output)")
        let now = try await work.build("now", Self.contracts(version: (1, 1, 0), requirements: Self.tomorrow))
        let update = try await work.gate(now, ["--baseline", "baseline", "--update"])
        #expect(update.status == 1, "\(update.output)")
        #expect(update.output.contains("FAILED: the ABI broke and the major version did not change"), "\(update.output)")
        #expect(update.output.contains("GateContracts: the baseline was not written"), "\(update.output)")
        let kept = try String(contentsOf: work.root.appendingPathComponent("baseline/GateContracts.version"), encoding: .utf8)
        #expect(kept == "1.0.0\n", "the last release's baseline stays: \(kept)")
    }

    /// The modules the library imports are not where the gate looks: the digester cannot load the
    /// library (it says so and exits 0, dumping an empty module). That is no verdict and no baseline:
    /// before, `--update` wrote an empty baseline and a check called the compiler's errors breaks.
    @Test func aLibraryTheDigesterCannotLoadIsNoVerdictAndWritesNoBaseline() async throws {
        let work = try Workspace()
        let built = try await work.build("now", Self.contracts(version: (1, 0, 0)))
        try FileManager.default.removeItem(at: built.modules.appendingPathComponent("PluginAPI.swiftinterface"))
        try FileManager.default.removeItem(at: built.modules.appendingPathComponent("PluginAPI.swiftmodule"))
        let update = try await work.gate(built, ["--baseline", "baseline", "--update"])
        #expect(update.status == 2, "\(update.output)")
        #expect(update.output.contains("could not load it from"), "\(update.output)")
        #expect(!FileManager.default.fileExists(atPath: work.root.appendingPathComponent("baseline/GateContracts.abi.json").path),
                "a baseline was written from a module that did not load")
    }

    /// A baseline version that is not plain MAJOR.MINOR.PATCH digits (a sign, a part above 65535) is
    /// refused as unreadable: no comparison, and no crash on the number.
    @Test(arguments: ["+1.0.0", "1.-0.0", "9223372036854775807.0.0", "1.0", "1.0.0.0"])
    func aBaselineVersionThatIsNotPlainDigitsCannotBeCompared(_ text: String) async throws {
        let work = try Workspace()
        _ = try await work.check(Self.contracts(version: (1, 0, 0)), against: Self.contracts(version: (1, 0, 0)))
        try "\(text)\n".write(to: work.root.appendingPathComponent("baseline/GateContracts.version"), atomically: true, encoding: .utf8)
        let now = try await work.build("now", Self.contracts(version: (2, 0, 0), requirements: Self.tomorrow))
        let result = try await work.gate(now, ["--baseline", "baseline"])
        #expect(result.status == 2, "\(text): \(result.output)")
    }

    @Test func withoutABaselineTheGateCannotCompareAndSaysHowToWriteOne() async throws {
        let work = try Workspace()
        let result = try await work.gate(try await work.build("now", Self.contracts(version: (1, 0, 0))), ["--baseline", "api"])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains("cannot compare GateContracts: no baseline (looked for api/GateContracts.abi.json and api/GateContracts.version)"),
                "\(result.output)")
        #expect(result.output.contains("swift package --allow-writing-to-package-directory check-abi --update"), "\(result.output)")
    }

    @Test func sourcesWithoutTheirVersionCannotBeCompared() async throws {
        let work = try Workspace()
        let source = Self.contracts(version: (1, 0, 0)).replacingOccurrences(of: #"LibraryVersion("GateContracts""#,
                                                                            with: #"LibraryVersion("Other""#)
        let result = try await work.gate(try await work.build("now", source), [])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains(#"expected one LibraryVersion("GateContracts", MAJOR, MINOR, PATCH)"#), "\(result.output)")
    }

    /// The baseline from a git tag: the library's sources at the tag, compiled by the gate on their own.
    @Test func aBaselineTagIsCompiledFromTheTaggedSources() async throws {
        let work = try Workspace()
        let release = try await work.build("repo", Self.contracts(version: (1, 0, 0)))
        let git = { (arguments: [String]) async throws in
            let result = try await runChild("/usr/bin/env", ["git", "-c", "user.name=gate", "-c", "user.email=gate@example.invalid"]
                + arguments, in: release.sources, log: work.root)
            try #require(result.status == 0, "git \(arguments): \(result.output)")
        }
        try await git(["init", "-q", "."])
        try await git(["add", "GateContracts.swift"])
        try await git(["commit", "-q", "-m", "1.0.0"])
        try await git(["tag", "1.0.0"])
        let now = try await work.build("repo", Self.contracts(version: (1, 1, 0), requirements: Self.tomorrow))

        let result = try await work.gate(now, ["--baseline-tag", "1.0.0"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("GateContracts 1.1.0, against tag 1.0.0 (1.0.0):"), "\(result.output)")
        #expect(result.output.contains(Self.requirementAdded), "\(result.output)")

        let missing = try await work.gate(now, ["--baseline-tag", "0.9.0"])
        #expect(missing.status == 2, "\(missing.output)")
        #expect(missing.output.contains("no tag or commit '0.9.0'"), "\(missing.output)")
    }

    /// The template's contract library, in a package of its own that depends on this repository by path,
    /// as an author has it: its CI script runs `swift package check-abi` against the baseline the
    /// template ships; a requirement added under a minor bump fails naming it, a major bump passes, and
    /// `--update` writes the new baseline.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func theTemplatesContractLibraryChecksItsABIWithItsCIScript() async throws {
        let files = FileManager.default
        let work = try Workspace()
        let template = repositoryRoot.appendingPathComponent("Templates/PluginTemplate/WeatherContracts")
        let package = work.root.appendingPathComponent("WeatherContracts")
        try files.createDirectory(at: package, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: template.path) where !name.hasPrefix(".") && !name.hasPrefix("Package.") {
            try files.copyItem(at: template.appendingPathComponent(name), to: package.appendingPathComponent(name))
        }
        let manifest = try String(contentsOf: template.appendingPathComponent("Package.swift"), encoding: .utf8)
        let rootPath = #"path: "../../..""#
        try #require(manifest.contains(rootPath), "the template's WeatherContracts/Package.swift no longer has \(rootPath)")
        try manifest.replacingOccurrences(of: rootPath, with: "path: \"\(repositoryRoot.path)\"")
            .write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let script = package.appendingPathComponent("ci/check-abi").path
        try #require(files.isExecutableFile(atPath: script), "the template's ci/check-abi is not executable")
        let check = { () async throws -> (status: Int32, output: String) in
            try await runBuild(script, [], in: package, log: work.root, timeout: BuildSlot.packageBuildTimeout)
        }

        let shipped = try await check()
        #expect(shipped.status == 0, "\(shipped.output)")
        #expect(shipped.output.contains("WeatherContracts 1.0.0, against api/WeatherContracts.abi.json (1.0.0):\nok: no ABI change."),
                "the template's baseline is its library's ABI: \(shipped.output)")

        let weather = package.appendingPathComponent("Weather.swift"), version = package.appendingPathComponent("Version.swift")
        let contracts = try String(contentsOf: weather, encoding: .utf8)
        let requirement = "    func today() -> Forecast\n"
        try #require(contracts.contains(requirement))
        try contracts.replacingOccurrences(of: requirement, with: requirement + "    func tomorrow() -> Forecast\n")
            .write(to: weather, atomically: true, encoding: .utf8)
        let setVersion = { (major: Int, minor: Int) throws in
            let text = try String(contentsOf: version, encoding: .utf8)
            let declaration = try Regex(#"LibraryVersion\("WeatherContracts", [0-9]+, [0-9]+, [0-9]+\)"#)
            try #require(text.contains(declaration))
            try text.replacing(declaration, with: "LibraryVersion(\"WeatherContracts\", \(major), \(minor), 0)")
                .write(to: version, atomically: true, encoding: .utf8)
        }
        try setVersion(1, 1)
        let minor = try await check()
        #expect(minor.status != 0, "\(minor.output)")
        #expect(minor.output.contains("break: Func WeatherService.tomorrow() has been added as a protocol requirement"), "\(minor.output)")
        #expect(minor.output.contains("FAILED: the ABI broke and the major version did not change (1.1.0, baseline 1.0.0)"),
                "\(minor.output)")

        try setVersion(2, 0)
        let major = try await check()
        #expect(major.status == 0, "\(major.output)")
        #expect(major.output.contains("ok: the ABI changed as 2.0.0 allows"), "\(major.output)")

        let update = try await runBuild("/usr/bin/env", ["swift", "package", "--allow-writing-to-package-directory", "check-abi", "--update"],
                                        in: package, log: work.root, timeout: BuildSlot.packageBuildTimeout)
        #expect(update.status == 0, "\(update.output)")
        #expect(try String(contentsOf: package.appendingPathComponent("api/WeatherContracts.version"), encoding: .utf8) == "2.0.0\n")
        let released = try await check()
        #expect(released.output.contains("WeatherContracts 2.0.0, against api/WeatherContracts.abi.json (2.0.0):\nok: no ABI change."),
                "\(released.output)")

        // Built without library evolution, the library has no stable ABI left: with a baseline, that fails.
        let evolving = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        let flag = #", .unsafeFlags(["-enable-library-evolution"])"#
        try #require(evolving.contains(flag), "the template's manifest no longer has \(flag)")
        try evolving.replacingOccurrences(of: flag, with: "").write(to: package.appendingPathComponent("Package.swift"),
                                                                   atomically: true, encoding: .utf8)
        let plain = try await check()
        #expect(plain.status != 0, "\(plain.output)")
        #expect(plain.output.contains("WeatherContracts: FAILED: it has a baseline (api/WeatherContracts.abi.json) but is no longer "
                                      + "built with -enable-library-evolution"), "\(plain.output)")
    }
}
