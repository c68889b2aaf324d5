import Foundation
import Testing

/// The `host` executable, run as a user would: exit status, stdout and stderr.
@Suite struct HostCommandTests {
    struct Run {
        let status: Int32
        let output: String
        let errors: String

        var errorLines: [String] { errors.split(separator: "\n").map(String.init) }
    }

    static let buildDirectory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    func host(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(Self.buildDirectory)/host")
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        variables["SWIFT_PLUGIN_PATH"] = nil
        process.environment = variables.merging(environment) { $1 }
        // Files, not pipes: a child that fills one pipe while we drain the other would never finish.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("host-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outFile = folder.appendingPathComponent("out")
        let errFile = folder.appendingPathComponent("err")
        try Data().write(to: outFile)
        try Data().write(to: errFile)
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: try String(contentsOf: outFile, encoding: .utf8),
                   errors: try String(contentsOf: errFile, encoding: .utf8))
    }

    /// Makes the crash and hang fixtures misbehave; a sanitizer must let the crash be one.
    let misbehave: [String: String] = {
        let environment = ProcessInfo.processInfo.environment
        func adding(_ option: String, to name: String) -> String {
            environment[name].map { "\($0):\(option)" } ?? option
        }
        return ["HOSTKIT_FIXTURE_MISBEHAVE": "1", "TSAN_OPTIONS": adding("handle_segv=0", to: "TSAN_OPTIONS"),
                "ASAN_OPTIONS": adding("handle_segv=0", to: "ASAN_OPTIONS")]
    }()

    func plugin(_ product: String) -> String {
        "\(Self.buildDirectory)/lib\(product).so"
    }

    @Test func theDefaultRunLoadsTheSamplesListsSlotsAndUsesThem() throws {
        let run = try host([])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.isEmpty)
        for name in ["loaded clock", "loaded greeter", "loaded notes"] { #expect(run.output.contains(name)) }
        #expect(run.output.contains("KEY"))
        #expect(run.output.contains("sample.greeting"))
        #expect(run.output.contains("(Swift.String) -> SampleContracts.Greeting"))
        #expect(run.output.contains("greeter:    Good "))
        #expect(run.output.contains("request-id: req-1, then req-2"))
        #expect(run.output.contains("same notebook while held: true"))
    }

    @Test func checkReportsEveryProblemOnStderrOneLineEachAndExitsOne() throws {
        let fixtures = ["FixtureWrongABI", "FixtureBadMagic", "FixtureNullEntry", "FixtureThrowingModule", "FixtureDuplicateKey"]
        let run = try host(["check"] + (["ClockPlugin", "GreeterPlugin", "NotesPlugin"] + fixtures)
            .flatMap { ["--plugins", plugin($0)] })
        #expect(run.status == 1)
        #expect(run.errorLines.count == fixtures.count, "\(run.errors)")
        #expect(run.errorLines.allSatisfy { $0.hasPrefix("host: ") })
        #expect(run.errors.contains("libFixtureWrongABI.so: built for PluginAPI ABI version"))
        #expect(run.errors.contains("libFixtureNullEntry.so: the plugin entry returned nothing"))
        #expect(run.errors.contains("plugin 'fixture-duplicate-clock': key 'sample.clock' is already provided by plugin 'clock'"))
        #expect(run.output.contains("3 loaded, 5 problem(s)"))
    }

    @Test func checkIsolatedSurvivesACrashingAndAHangingPlugin() throws {
        let run = try host(["check", "--isolated", "--probe-timeout", "2"]
            + ["ClockPlugin", "FixtureCrash", "FixtureHang"].flatMap { ["--plugins", plugin($0)] },
            environment: misbehave)
        #expect(run.status == 1)
        #expect(run.errorLines.count == 2, "\(run.errors)")
        #expect(run.errors.contains("libFixtureCrash.so: probe failed: crashed while loading: signal 11"))
        #expect(run.errors.contains("libFixtureHang.so: probe failed: did not finish loading within 2"))
        #expect(run.output.contains("1 loaded, 2 problem(s)"))
    }

    @Test func checkOfGoodPluginsExitsZero() throws {
        let run = try host(["check", "--plugins", plugin("ClockPlugin"), "--json"])
        #expect(run.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let plugins = try #require(object?["plugins"] as? [[String: Any]])
        #expect(plugins.map { $0["name"] as? String } == ["clock"])
    }

    @Test func inspectPrintsTheDescriptor() throws {
        let run = try host(["inspect", plugin("GreeterPlugin"), "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        #expect(object?["name"] as? String == "greeter")
        #expect(object?["requires"] as? [String] == ["sample.clock"])
    }

    @Test func inspectOfAFileThatIsNoPluginFailsWithTheReason() throws {
        let run = try host(["inspect", plugin("SampleContracts")])
        #expect(run.status == 1)
        #expect(run.errors.contains("libSampleContracts.so: not a plugin, no entry symbol 'swift_plugin_entry'"))
    }

    @Test func resolveGetsAServiceByItsKey() throws {
        let run = try host(["resolve", "sample.request-id", "--plugins", plugin("NotesPlugin")])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("'sample.request-id': Swift.String [many] from notes"))
        #expect(run.output.contains("req-1"))
        let missing = try host(["resolve", "sample.nothing", "--plugins", plugin("NotesPlugin")])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no service for key 'sample.nothing'"))
    }

    @Test func listReadsTheSearchPathFromTheEnvironment() throws {
        let run = try host(["list", "--json"], environment: ["SWIFT_PLUGIN_PATH": "\(plugin("ClockPlugin")):\(plugin("NotesPlugin"))"])
        #expect(run.status == 0, "\(run.errors)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let slots = try #require(object?["slots"] as? [[String: String]])
        #expect(slots.map { $0["key"] } == ["sample.clock", "sample.notebook", "sample.request-id"])
    }

    @Test(arguments: [["--bogus"], ["inspect"], ["resolve"], ["list", "extra"], ["--plugins"]])
    func usageErrorsExitTwo(_ arguments: [String]) throws {
        let run = try host(arguments)
        #expect(run.status == 2)
        #expect(run.errors.contains("usage: host"))
    }

    @Test func helpAndVersionExitZero() throws {
        let help = try host(["--help"])
        #expect(help.status == 0 && help.output.contains("usage: host"))
        let version = try host(["--version"])
        #expect(version.status == 0 && version.output.contains("PluginAPI ABI"))
    }
}
