import Foundation
import TestSupport
import Testing

/// `host new plugin NAME` and `host new contracts NAME`, run as an author would: what they refuse,
/// what they write, and that what they write builds and loads as it is.
@Suite struct NewCommandTests {
    /// A bad NAME, an unknown option, an option of the other kind: one line saying what is wrong, a
    /// hint to `host help new`, exit 2, and nothing written.
    @Test func usageErrorsSayWhatIsWrongInOneLineAndWriteNothing() async throws {
        let folder = try TemporaryFolder()
        let target = folder.file("Package")
        let cases: [([String], String)] = [
            (["new", "plugin", "9lives"], "host: '9lives' is no NAME: it must be a Swift identifier"),
            (["new", "plugin", "has-dash"], "host: 'has-dash' is no NAME"),
            (["new", "contracts", "Wetter\u{E9}"], "host: 'Wetter\u{E9}' is no NAME"),
            (["new", "plugin", "Forecast", "--json"], "host: unknown option '--json' of new plugin"),
            (["new", "contracts", "Weather", "--bogus"], "host: unknown option '--bogus' of new contracts"),
            (["new", "contracts", "Weather", "--contracts", folder.path], "host: --contracts is an option of new plugin"),
            (["new", "plugin"], "host: new plugin needs a NAME"),
            (["new", "widget", "Forecast"], "host: new writes a plugin or contracts, not 'widget'"),
            (["new", "plugin", "Forecast", "Again"], "host: unexpected argument 'Again'"),
            (["new", "plugin", "Forecast", "--host-package", folder.path], "host: --host-package \(folder.path): no SwiftPluginHost package"),
            (["new", "plugin", "Forecast", "--contracts", folder.path], "host: --contracts \(folder.path): no Package.swift there"),
            (["new", "plugin", "Forecast", "--distributed"], "host: new plugin --distributed serves a distributed contract"),
            (["new", "plugin", "Forecast", "--uses"], "host: new plugin --uses calls a contract's service: name its package"),
            (["new", "contracts", "Weather", "--uses"], "host: --uses is an option of new plugin, not of new contracts"),
            (["new", "plugin", "Forecast", "--contracts", folder.path, "--uses", "--distributed"],
             "host: new plugin --distributed serves a contract's service, --uses calls one"),
        ]
        for (arguments, problem) in cases {
            let run = try await HostCommandTests().host(arguments + ["--in", target])
            #expect(run.status == 2, "\(arguments): \(run.output) \(run.errors)")
            #expect(run.errorLines.count == 2, "\(arguments): \(run.errors)")
            #expect(run.errorLines.first?.hasPrefix(problem) == true, "\(arguments): \(run.errors)")
            #expect(run.errorLines.last == "host: see 'host help new' for how it goes", "\(arguments): \(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(arguments) wrote \(target)")
        }
        let other = try await HostCommandTests().host(["check", "--contracts", folder.path])
        #expect(other.status == 2)
        #expect(other.errorLines.first == "host: --contracts is not an option of check (only new takes it)", "\(other.errors)")

        let help = try await HostCommandTests().host(["help", "new"])
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("usage: host new plugin NAME [--contracts PATH [--uses]]"), "\(help.output)")
        #expect(help.output.contains("`host new plugin Forecast` writes ForecastPlugin/"), "\(help.output)")
        #expect(try await HostCommandTests().host(["new", "plugin", "Forecast", "--help"]).output == help.output)
        #expect(try await HostCommandTests().host(["help"]).output.contains("host new contracts NAME"))
    }

    /// A folder that holds anything, or a file in its place, is refused by name and left as it was, and
    /// so is a folder named as a package the host package depends on; an empty folder is written into.
    @Test func aFolderThatIsNotEmptyIsRefusedAndLeftAsItWas() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("Taken"), withIntermediateDirectories: false)
        let mine = try folder.write("Taken/Package.swift", Array("// mine\n".utf8))
        let file = try folder.write("AFile", Array("a file".utf8))
        // A folder named as a package the host package depends on: SwiftPM would take one for the other.
        let sample = try await HostCommandTests().host(["new", "contracts", "Sample", "--in", folder.file("SampleContracts")])
        #expect(sample.status == 2)
        #expect(sample.errorLines.first?.hasPrefix("host: the folder \(folder.file("SampleContracts")) is named as the package"
                                                   + " SampleContracts") == true, "\(sample.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("SampleContracts")))
        for (target, problem) in [(folder.file("Taken"), "host: the folder \(folder.file("Taken")) is not empty"),
                                  (file, "host: \(file) is a file, not a folder")] {
            for kind in ["plugin", "contracts"] {
                let run = try await HostCommandTests().host(["new", kind, "Forecast", "--in", target])
                #expect(run.status == 2, "\(kind) \(target): \(run.output)")
                #expect(run.errorLines.first?.hasPrefix(problem) == true, "\(run.errors)")
                #expect(run.errorLines.count == 2, "\(run.errors)")
            }
        }
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "// mine\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("Taken")) == ["Package.swift"])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "a file")

        try FileManager.default.createDirectory(atPath: folder.file("Empty"), withIntermediateDirectories: false)
        let empty = try await HostCommandTests().host(["new", "plugin", "Forecast", "--in", folder.file("Empty")])
        #expect(empty.status == 0, "\(empty.errors)")
        #expect(FileManager.default.fileExists(atPath: folder.file("Empty/Package.swift")))
    }

    /// The README's own example, `host new plugin Greeter`, would write the target GreeterPlugin, and
    /// the host package has one: SwiftPM refuses such a graph ("multiple packages declare targets with
    /// a conflicting name"). Such a NAME is refused before anything is written, naming the clash and a
    /// NAME that is free, whatever the folder and the case; the NAME suggested is written.
    @Test func aNameTheHostPackageHasIsRefusedBeforeWritingWithOneThatIsFree() async throws {
        let folder = try TemporaryFolder()
        let cases: [([String], String)] = [
            (["plugin", "Greeter"], "would name its target and library GreeterPlugin, the name of a target of the package SwiftPluginHost"),
            (["plugin", "clockPlugin"], "would name its target and library clockPlugin, the name of a target of the package SwiftPluginHost"),
            (["contracts", "Sample"], "would name its target and library SampleContracts, the name of a product of the package SwiftPluginHost"),
        ]
        for (arguments, problem) in cases {
            let target = folder.file("Elsewhere")
            let run = try await HostCommandTests().host(["new"] + arguments + ["--in", target])
            #expect(run.status == 2, "\(arguments): \(run.output) \(run.errors)")
            #expect(run.errorLines.count == 2, "\(arguments): \(run.errors)")
            #expect(run.errorLines.first?.contains(problem) == true, "\(arguments): \(run.errors)")
            #expect(run.errorLines.last == "host: see 'host help new' for how it goes", "\(arguments): \(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(arguments) wrote \(target)")
        }
        let greeter = try await HostCommandTests().host(["new", "plugin", "Greeter", "--in", folder.file("Greeter")])
        #expect(greeter.errors.contains("choose another NAME, such as MyGreeter"), "\(greeter.errors)")
        let suggested = try await HostCommandTests().host(["new", "plugin", "MyGreeter", "--in", folder.file("MyGreeter")])
        #expect(suggested.status == 0, "\(suggested.errors)")
        #expect(FileManager.default.fileExists(atPath: folder.file("MyGreeter/Sources/MyGreeterPlugin/MyGreeterPlugin.swift")))
    }

    /// Without `--in`, the package goes into a folder of its name in the current folder, named by the
    /// rule `host help new` gives (NAME + Plugin, NAME + Contracts, or NAME if it ends so); its manifest
    /// names the repository this `host` was built from; the output lists each file and what to run.
    @Test func theFilesAreNamedByTheRuleAndTheManifestNamesThisRepository() async throws {
        let folder = try TemporaryFolder()
        let work = URL(fileURLWithPath: folder.path)
        let plugin = try await runChild(try hostExecutable(), ["new", "plugin", "Forecast"], in: work, log: work)
        #expect(plugin.status == 0, "\(plugin.output)")
        for file in ["Package.swift", "Sources/ForecastPlugin/ForecastPlugin.swift", ".gitignore"] {
            #expect(FileManager.default.fileExists(atPath: folder.file("ForecastPlugin/\(file)")), "\(file)")
            #expect(plugin.output.contains("wrote ForecastPlugin/\(file)\n"), "\(plugin.output)")
        }
        // Each next command runs from where `host new` ran.
        #expect(plugin.output.contains("  swift build --package-path ForecastPlugin\n"), "\(plugin.output)")
        #expect(plugin.output.contains(" check --plugins ForecastPlugin/.build/debug/libForecastPlugin.so\n"), "\(plugin.output)")
        #expect(plugin.output.contains(" resolve forecast.greeting --plugins ForecastPlugin/.build/debug/libForecastPlugin.so"),
                "\(plugin.output)")
        let manifest = try String(contentsOfFile: folder.file("ForecastPlugin/Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".library(name: "ForecastPlugin", type: .dynamic, targets: ["ForecastPlugin"])"#), "\(manifest)")
        #expect(manifest.contains(#".product(name: "PluginAPI", package: "SwiftPluginHost")"#), "\(manifest)")
        let hostPath = try #require(manifest.firstMatch(of: #/\.package\(name: "SwiftPluginHost", path: "([^"]+)"\)/#)?.1)
        let named = URL(fileURLWithPath: String(hostPath), relativeTo: URL(fileURLWithPath: folder.file("ForecastPlugin/")))
        #expect(named.resolvingSymlinksInPath().path == repositoryRoot.resolvingSymlinksInPath().path, "\(hostPath)")
        #expect(try String(contentsOfFile: folder.file("ForecastPlugin/.gitignore"), encoding: .utf8) == ".build\nPackage.resolved\n")

        // A NAME that ends in the suffix already is not given it twice.
        let named2 = try await runChild(try hostExecutable(), ["new", "plugin", "TidesPlugin"], in: work, log: work)
        #expect(named2.status == 0, "\(named2.output)")
        #expect(FileManager.default.fileExists(atPath: folder.file("TidesPlugin/Sources/TidesPlugin/TidesPlugin.swift")))

        let contracts = try await runChild(try hostExecutable(), ["new", "contracts", "Weather"], in: work, log: work)
        #expect(contracts.status == 0, "\(contracts.output)")
        let package = folder.file("WeatherContracts")
        let contractsManifest = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(contractsManifest.contains(#".library(name: "WeatherContracts", type: .dynamic"#), "\(contractsManifest)")
        #expect(contractsManifest.contains(#".unsafeFlags(["-enable-library-evolution"])"#), "\(contractsManifest)")
        #expect(contractsManifest.contains(#".package(name: "SwiftPluginHost", path: "\#(hostPath)")"#), "\(contractsManifest)")
        #expect(contractsManifest.contains("run ci/check-abi"), "\(contractsManifest)")
        let version = try String(contentsOfFile: package + "/Sources/WeatherContracts/Version.swift", encoding: .utf8)
        #expect(version.contains(#"LibraryVersion("WeatherContracts", 1, 0, 0)"#), "\(version)")
        #expect(version.contains("@c(swift_library_version_WeatherContracts)"), "\(version)")
        let script = package + "/ci/check-abi"
        #expect(FileManager.default.isExecutableFile(atPath: script))
        let lines = try String(contentsOfFile: script, encoding: .utf8).split(separator: "\n")
        let build = try #require(lines.firstIndex(of: "swift build"))
        #expect(lines[(build + 1)...].contains { $0.hasPrefix("swift package check-abi") }, "\(lines)")
    }

    /// `--host-package` and `--contracts` are named relative to the new package when they share a
    /// folder with it, so that the folders keep building when moved together.
    @Test func pathsThatShareAFolderAreWrittenRelative() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("clone"), withIntermediateDirectories: false)
        // A manifest SwiftPM reads: `host new` asks it for the package's target names.
        _ = try folder.write("clone/Package.swift", Array(("// swift-tools-version:6.0\nimport PackageDescription\n"
                                                          + "let package = Package(\n    name: \"SwiftPluginHost\")\n").utf8))
        let contracts = try await HostCommandTests().host(["new", "contracts", "Tides", "--in", folder.file("shared/TidesContracts"),
                                                           "--host-package", folder.file("clone")])
        #expect(contracts.status == 0, "\(contracts.errors)")
        let plugin = try await HostCommandTests().host(["new", "plugin", "Moon", "--in", folder.file("plugins/deep/Moon"),
                                                        "--host-package", folder.file("clone"),
                                                        "--contracts", folder.file("shared/TidesContracts")])
        #expect(plugin.status == 0, "\(plugin.errors)")
        let manifest = try String(contentsOfFile: folder.file("plugins/deep/Moon/Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".package(name: "SwiftPluginHost", path: "../../../clone")"#), "\(manifest)")
        #expect(manifest.contains(#".package(name: "TidesContracts", path: "../../../shared/TidesContracts")"#), "\(manifest)")
        let source = try String(contentsOfFile: folder.file("plugins/deep/Moon/Sources/MoonPlugin/MoonPlugin.swift"), encoding: .utf8)
        #expect(source.contains("provides: [TidesKeys.service]"), "\(source)")
        #expect(source.contains("[.tidesContracts]"), "\(source)")
        #expect(source.contains("struct MoonTidesService: TidesService"), "\(source)")

        // A package that `host new contracts` did not write is refused, not written against.
        let notContracts = try await HostCommandTests().host(["new", "plugin", "Sun", "--in", folder.file("Sun"),
                                                              "--contracts", folder.file("plugins/deep/Moon")])
        #expect(notContracts.status == 2)
        #expect(notContracts.errors.contains("the package MoonPlugin is no contracts package"), "\(notContracts.errors)")
    }

    /// The issue's whole path: `host new contracts Weather`, `host new plugin Forecast --contracts
    /// WeatherContracts`, `swift build` of the plugin with no warning, and the next commands it printed
    /// load the plugin and get its service, of the contract's protocol type.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aContractsPackageAndAPluginForItBuildAndLoadAsWritten() async throws {
        let folder = try TemporaryFolder()
        let work = URL(fileURLWithPath: folder.path)
        let host = try hostExecutable()
        let contracts = try await runChild(host, ["new", "contracts", "Weather"], in: work, log: work)
        try #require(contracts.status == 0, "\(contracts.output)")
        let package = work.appendingPathComponent("ForecastPlugin")
        let written = try await writeAndBuild(["plugin", "Forecast", "--contracts", "WeatherContracts"], package: package, in: work)

        let check = try await runPrinted("check", from: written, in: work, log: work)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("loaded forecast 1.0.0 ("), "\(check.output)")
        #expect(check.output.contains("1 loaded, 0 problem(s)"), "\(check.output)")
        let resolve = try await runPrinted("resolve", from: written, in: work, log: work)
        #expect(resolve.status == 0, "\(resolve.output)")
        #expect(resolve.output.contains("'weather.service': WeatherContracts.WeatherService [atOne] from forecast"), "\(resolve.output)")
        #expect(resolve.output.contains("\nWeather from the forecast plugin\n"), "\(resolve.output)")
        let inspect = try await runChild(host, ["inspect", ".build/debug/libForecastPlugin.so"], in: package, log: work)
        #expect(inspect.output.contains(", WeatherContracts 1.0.0"), "\(inspect.output)")

        // The contract library's CI script runs the ABI gate: before a first release there is nothing
        // to compare with, and it says how to write the baseline; once written, the check passes.
        let library = work.appendingPathComponent("WeatherContracts")
        let script = library.appendingPathComponent("ci/check-abi").path
        let first = try await runBuild(script, [], in: library, log: work, timeout: BuildSlot.packageBuildTimeout)
        #expect(first.status != 0, "\(first.output)")
        #expect(first.output.contains("cannot compare WeatherContracts: no baseline"), "\(first.output)")
        let update = try await runBuild(script, ["--update"], in: library, log: work, timeout: BuildSlot.packageBuildTimeout)
        #expect(update.status == 0 && update.output.contains("wrote api/WeatherContracts.abi.json"), "\(update.output)")
        let second = try await runBuild(script, [], in: library, log: work, timeout: BuildSlot.packageBuildTimeout)
        #expect(second.status == 0 && second.output.contains("ok: no ABI change"), "\(second.output)")
    }

    /// `--distributed`: a contract library whose protocol is a distributed actor's, and a plugin whose
    /// distributed actor serves it, build with no warning; the plugin loads and its service is of the
    /// contract's protocol type. A plain contracts package is refused for `new plugin --distributed`.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aDistributedContractsPackageAndAPluginForItBuildAndLoadAsWritten() async throws {
        let folder = try TemporaryFolder()
        let work = URL(fileURLWithPath: folder.path)
        let host = try hostExecutable()
        let contracts = try await runChild(host, ["new", "contracts", "Tides", "--distributed"], in: work, log: work)
        try #require(contracts.status == 0, "\(contracts.output)")
        #expect(contracts.output.contains("new plugin NAME --contracts TidesContracts --distributed"), "\(contracts.output)")
        let source = try String(contentsOfFile: folder.file("TidesContracts/Sources/TidesContracts/TidesService.swift"), encoding: .utf8)
        #expect(source.contains("@Resolvable\npublic protocol TidesService: DistributedActor"), "\(source)")
        #expect(source.contains("DistributedServiceEasyKey<any TidesService, $TidesService<PluginActorSystem>>("), "\(source)")
        let package = work.appendingPathComponent("HarborPlugin")
        let written = try await writeAndBuild(["plugin", "Harbor", "--contracts", "TidesContracts", "--distributed"],
                                              package: package, in: work)

        let check = try await runPrinted("check", from: written, in: work, log: work)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("loaded harbor 1.0.0 ("), "\(check.output)")
        let resolve = try await runPrinted("resolve", from: written, in: work, log: work)
        #expect(resolve.status == 0, "\(resolve.output)")
        #expect(resolve.output.contains("'tides.service': TidesContracts.TidesService [lazy] from harbor"), "\(resolve.output)")
        let inspect = try await runChild(host, ["inspect", ".build/debug/libHarborPlugin.so"], in: package, log: work)
        #expect(inspect.output.contains(", PluginActors "), "\(inspect.output)")
        #expect(inspect.output.contains(", TidesContracts 1.0.0"), "\(inspect.output)")

        // A plugin that uses the service, written with --uses: it requires the key and, depending on
        // PluginActors as the provider does, calls it when it starts, in process or across processes.
        let user = work.appendingPathComponent("SailorPlugin")
        let usage = try await writeAndBuild(["plugin", "Sailor", "--contracts", "TidesContracts", "--uses"], package: user, in: work)
        #expect(usage.contains("/host run --plugins PROVIDER.so --plugins SailorPlugin/.build/debug/libSailorPlugin.so"),
                "\(usage)")
        let plugins = ["--plugins", package.appendingPathComponent(".build/debug/libHarborPlugin.so").path,
                       "--plugins", user.appendingPathComponent(".build/debug/libSailorPlugin.so").path]
        for placement in [[], ["--own-process", "libHarborPlugin.so"]] {
            let run = try await runChild(host, ["run"] + plugins + placement, in: work, log: work)
            #expect(run.status == 0, "\(placement): \(run.output)")
            #expect(run.output.contains("TidesService answered: hello, from the harbor plugin"), "\(placement): \(run.output)")
        }

        // The contract library's ABI gate reads the distributed protocol and what @Resolvable made of it.
        let library = work.appendingPathComponent("TidesContracts")
        let script = library.appendingPathComponent("ci/check-abi").path
        let update = try await runBuild(script, ["--update"], in: library, log: work, timeout: BuildSlot.packageBuildTimeout)
        #expect(update.status == 0 && update.output.contains("wrote api/TidesContracts.abi.json"), "\(update.output)")
        let again = try await runBuild(script, [], in: library, log: work, timeout: BuildSlot.packageBuildTimeout)
        #expect(again.status == 0 && again.output.contains("ok: no ABI change"), "\(again.output)")

        // The plain contracts package has no distributed protocol for a distributed plugin.
        let plain = try await runChild(host, ["new", "contracts", "Reef"], in: work, log: work)
        try #require(plain.status == 0, "\(plain.output)")
        let refused = try await runChild(host, ["new", "plugin", "Diver", "--contracts", "ReefContracts", "--distributed"], in: work, log: work)
        #expect(refused.status == 2, "\(refused.output)")
        #expect(refused.output.contains("its protocol is not distributed"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("DiverPlugin")))
    }

    /// A plugin without contracts builds with no warning and its printed `resolve` gets its service.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aPluginOfItsOwnBuildsAndLoadsAsWritten() async throws {
        let folder = try TemporaryFolder()
        let work = URL(fileURLWithPath: folder.path)
        let package = work.appendingPathComponent("HelloPlugin")
        let written = try await writeAndBuild(["plugin", "Hello"], package: package, in: work)
        let resolve = try await runPrinted("resolve", from: written, in: work, log: work)
        #expect(resolve.status == 0, "\(resolve.output)")
        #expect(resolve.output.contains("'hello.greeting': Swift.String [lazy] from hello"), "\(resolve.output)")
        #expect(resolve.output.contains("\nHello from the hello plugin\n"), "\(resolve.output)")
    }

    /// Runs `host new ARGUMENTS` in `work`, then `swift build` in the package it wrote there, `package`:
    /// both must succeed, and the build warn of nothing. Returns what `host new` printed.
    private func writeAndBuild(_ arguments: [String], package: URL, in work: URL) async throws -> String {
        let written = try await runChild(try hostExecutable(), ["new"] + arguments, in: work, log: work)
        try #require(written.status == 0, "\(written.output)")
        let build = try await runBuild("/usr/bin/env", ["swift", "build"], in: package, log: work, timeout: BuildSlot.packageBuildTimeout)
        try #require(build.status == 0, "swift build of \(package.lastPathComponent) failed (\(build.status)):\n\(build.output)")
        #expect(!build.output.contains("warning:"), "\(build.output)")
        return written.output
    }

    /// Runs the `host COMMAND ...` line that `host new` printed among its next commands, in `folder`
    /// (the paths here have no blanks: split at spaces, the words are the printed ones).
    private func runPrinted(_ command: String, from output: String, in folder: URL, log: URL) async throws -> (status: Int32, output: String) {
        let line = try #require(output.split(separator: "\n").first { $0.contains("/host \(command) ") }, "\(output)")
        let words = line.split(separator: " ").map(String.init)
        #expect(words.first == (try hostExecutable()), "\(line)")
        return try await runChild(words[0], Array(words.dropFirst()), in: folder, log: log)
    }

    /// The `host` executable `swift test` built beside this test bundle, its real path (as `host`
    /// prints it in its next commands).
    private func hostExecutable() throws -> String {
        let host = URL(fileURLWithPath: "\(BuiltPlugins.directory)/host").resolvingSymlinksInPath().path
        try #require(FileManager.default.isExecutableFile(atPath: host), "no host executable in \(BuiltPlugins.directory)")
        return host
    }
}
