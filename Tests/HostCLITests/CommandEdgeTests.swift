import Foundation
import TestSupport
import Testing

/// What an operator meets at the edges of the `host` command: listing and checking without side
/// effects, usage errors that say what is wrong, nothing found, how `serve` ends.
extension HostCommandTests {
    /// `list` and `check` load and register but run no start or shutdown hook: the notes sample
    /// writes no journal. `check --start` (and `list --start`) run them, as `run` does.
    @Test func listAndCheckRunNoHooksUnlessStartIsGiven() async throws {
        let folder = try TemporaryFolder()
        let journal = folder.file("journal.log")
        let read = { (try? String(contentsOfFile: journal, encoding: .utf8)) }
        for command in [["list"], ["check"], ["list", "--json"], ["check", "--json"]] {
            let run = try await host(command + ["--plugins", plugin("NotesPlugin")], environment: ["SAMPLE_JOURNAL": journal])
            #expect(run.status == 0, "\(command): \(run.errors)")
            #expect(!run.output.contains("stopped notes"), "\(command): \(run.output)")
            #expect(read() == nil, "\(command): \(read() ?? "")")
        }
        for command in ["check", "list"] {
            let started = try await host([command, "--start", "--plugins", plugin("NotesPlugin")],
                                         environment: ["SAMPLE_JOURNAL": journal])
            #expect(started.status == 0, "\(command): \(started.errors)")
            #expect(read()?.hasPrefix("notes started") == true && read()?.hasSuffix("notes stopped\n") == true, "\(command): \(read() ?? "")")
            try? FileManager.default.removeItem(atPath: journal)
        }
        let wrong = try await host(["run", "--start"])
        #expect(wrong.status == 2)
        #expect(wrong.errors.contains("--start is not an option of run"), "\(wrong.errors)")
        let help = try await host(["help", "check"])
        #expect(help.output.contains("--start"), "\(help.output)")
    }

    /// `host help COMMAND` is that command's help; a usage error is one line saying what is wrong and
    /// a hint, not the whole usage.
    @Test func usageErrorsSayWhatIsWrongInOneLineWithAHint() async throws {
        // `host help help` is the general help (it exited 2: "no command 'help' to help with").
        let helpHelp = try await host(["help", "help"])
        #expect(helpHelp.status == 0, "\(helpHelp.errors)")
        #expect(helpHelp.output == (try await host(["help"])).output)

        let help = try await host(["help", "resolve"])
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("usage: host resolve KEY"), "\(help.output)")
        #expect(!help.output.contains("host serve"), "\(help.output)")
        #expect(try await host(["resolve", "--help"]).output == help.output)

        let cases: [([String], String, String)] = [
            (["bogus"], "host: unknown command 'bogus'", "host help"),
            (["list", "--param", "x"], "host: --param is not an option of list", "host help list"),
            (["list", "extra"], "host: unexpected argument 'extra'", "host help list"),
            (["--probe-timeout", "nan"], "host: --probe-timeout needs a number of seconds", "host help"),
            (["resolve", "k", "--param", "a", "--param", "b"], "host: --param is given twice", "host help resolve"),
        ]
        for (arguments, problem, hint) in cases {
            let run = try await host(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.errorLines.count == 2, "\(arguments): \(run.errors)")
            #expect(run.errorLines.first?.hasPrefix(problem) == true, "\(arguments): \(run.errors)")
            #expect(run.errorLines.last?.contains("'\(hint)'") == true, "\(arguments): \(run.errors)")
            #expect(!run.errors.contains("usage: host"), "\(arguments): \(run.errors)")
        }
    }

    /// A folder with no plugin, a folder that is not there: said so, and `check` exits 1, instead of
    /// `0 loaded, 0 problem(s)` and exit 0.
    @Test func nothingFoundIsSaidAndFailsTheCheck() async throws {
        let folder = try TemporaryFolder()
        _ = try folder.write("README", Array("no plugin here".utf8))
        for path in [folder.path, folder.file("missing")] {
            let check = try await host(["check", "--plugins", path])
            #expect(check.status == 1, "\(path): \(check.output)")
            #expect(check.errors.contains("no plugin found"), "\(path): \(check.errors)")
            #expect(!check.output.contains("0 loaded, 0 problem(s)"), "\(path): \(check.output)")
            let list = try await host(["list", "--plugins", path])
            #expect(list.errors.contains("no plugin found"), "\(path): \(list.errors)")
            // No empty table under the error (it printed the header alone).
            #expect(list.output.isEmpty, "\(path): \(list.output)")
        }
        let help = try await host(["help", "check"])
        #expect(help.output.contains("no plugin"), "\(help.output)")
    }

    /// A contract library laid beside plugins that link it is no problem, also when every plugin
    /// there is refused: their refusals are the problems. Before, when no plugin there opened, the
    /// library was counted a second problem, "not a plugin".
    @Test func aContractLibraryBesideOnlyRefusedPluginsIsNoProblem() async throws {
        let folder = try TemporaryFolder()
        try folder.copy("FixtureUnrecordedContracts", as: "unrecorded.so")
        try folder.copy("SampleContracts", as: "libSampleContracts.so")
        let check = try await host(["check", "--plugins", folder.path])
        #expect(check.status == 1)
        #expect(check.errorLines.count == 1, "\(check.errors)")
        #expect(check.errors.contains("unrecorded.so: links SampleContracts"), "\(check.errors)")
        #expect(check.output.contains("/libSampleContracts.so), linked by unrecorded.so"), "\(check.output)")
        #expect(check.output.contains("0 loaded, 1 problem(s)"), "\(check.output)")
    }

    /// `inspect` in text says whether the file would load, as `--json`'s `loadable` does: it said so
    /// only of a file it would refuse.
    @Test func inspectSaysWhetherTheFileWouldLoad() async throws {
        let good = try await host(["inspect", plugin("ClockPlugin")])
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output.contains("\nloadable: yes, this host would load it\n"), "\(good.output)")
        let refused = try await host(["inspect", plugin("FixtureWrongABI")])
        #expect(refused.status == 1)
        #expect(refused.output.contains("\nloadable: no, this host would refuse it (see below)\n"), "\(refused.output)")
    }

    /// `serve` that stops cleanly exits 0, whatever problems its load had long before; `--strict`
    /// refuses to serve a load with problems (exit 1, never serving).
    @Test func serveExitsByHowItStoppedAndStrictRefusesAProblemLoad() async throws {
        let plugins = ["--plugins", plugin("ClockPlugin"), "--plugins", plugin("FixtureNullEntry")]
        let child = try await serveUntilSignalled(["serve"] + plugins, environment: [:], serving: "serving 1 plugin(s)",
                                                  signal: SIGTERM)
        #expect(child.process.terminationStatus == 0, "\(child.errors)")
        #expect(child.errors.contains("the plugin entry returned nothing"), "\(child.errors)")
        let strict = try await host(["serve", "--strict"] + plugins)
        #expect(strict.status == 1, "\(strict.output)")
        #expect(!strict.output.contains("serving"), "\(strict.output)")
        #expect(strict.errors.contains("--strict"), "\(strict.errors)")
        #expect(strict.output.contains("stopped clock"), "\(strict.output)")
    }
}

/// `host inspect` of files that are not what it expects.
extension HostCommandTests {
    /// A system library (another compiler's, with no entry symbol) is said to be no plugin, not a
    /// plugin of another compiler.
    @Test func inspectOfASystemLibrarySaysItIsNoPlugin() async throws {
        let candidates = ["/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
                          "/lib/aarch64-linux-gnu/libz.so.1", "/usr/lib64/libz.so.1", "/lib/x86_64-linux-gnu/libm.so.6"]
        let library = try #require(candidates.first { FileManager.default.fileExists(atPath: $0) }, "no system library")
        let run = try await host(["inspect", library])
        #expect(run.status == 1)
        #expect(run.errors.contains("not a plugin, no entry symbol 'swift_plugin_entry'"), "\(run.errors)")
        #expect(!run.errors.contains("another compiler"), "\(run.errors)")
        // A plugin of another compiler still says so (its entry symbol is there).
        let folder = try TemporaryFolder()
        let path = try folder.copy("ClockPlugin", as: "libClockPlugin.so")
        let mark = Array("clang version 21.0.0".utf8)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        if let at = bytes.indices.first(where: { bytes[$0...].starts(with: mark) }) {
            bytes[at + 6] = UInt8(ascii: "X")  // "clang Xersion": no compiler named
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let other = try await host(["inspect", path])
            #expect(other.errors.contains("another compiler"), "\(other.errors)")
        }
    }

    /// With stdout and stderr one file (`2>&1`), the refusal comes after the line that announces it.
    @Test func aRefusalComesAfterTheLineThatAnnouncesItInOneStream() async throws {
        let folder = try TemporaryFolder()
        let both = try folder.write("both", [])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(BuiltPlugins.directory)/host")
        process.arguments = ["inspect", plugin("FixtureWrongABI")]
        let handle = try #require(FileHandle(forWritingAtPath: both))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        _ = try await poll(atMost: .seconds(60)) { !process.isRunning }
        process.waitUntilExit()
        let text = try String(contentsOfFile: both, encoding: .utf8)
        let announce = try #require(text.range(of: "this host would refuse it"), "\(text)")
        let refusal = try #require(text.range(of: "): another major version"), "\(text)")
        #expect(announce.lowerBound < refusal.lowerBound, "\(text)")
    }
}

/// `host resolve` of a key no slot has.
extension HostCommandTests {
    /// With `--param`, a key no slot has is said to have no service, not to take no parameters.
    @Test func resolveOfAMissingKeyWithAParamSaysThereIsNoService() async throws {
        let run = try await host(["resolve", "nosuch.key", "--param", "x", "--plugins", plugin("NotesPlugin")])
        #expect(run.status == 1)
        #expect(run.errors.contains("no service for key 'nosuch.key'"), "\(run.errors)")
        #expect(!run.errors.contains("takes no parameters"), "\(run.errors)")
    }

    /// `resolve --json` is JSON on stdout either way: on success every field (null where there is
    /// nothing to say: the slot's mode, whether it is async, the `--param` given), on an error an
    /// object with the key and the reason (also said on stderr, as without `--json`).
    @Test func resolveJSONSaysEverythingOnSuccessAndGivesAnErrorObject() async throws {
        let notes = ["--plugins", plugin("NotesPlugin")]
        let found = try await host(["resolve", "sample.request-id", "--json"] + notes)
        #expect(found.status == 0, "\(found.errors)")
        let object = try JSONSerialization.jsonObject(with: Data(found.output.utf8)) as? [String: Any]
        #expect(object?["mode"] as? String != nil && object?["async"] as? Bool == false, "\(found.output)")
        #expect(object?.keys.contains("param") == true && object?["param"] is NSNull, "\(found.output)")
        let missing = try await host(["resolve", "nosuch.key", "--json"] + notes)
        #expect(missing.status == 1)
        let error = try JSONSerialization.jsonObject(with: Data(missing.output.utf8)) as? [String: Any]
        #expect(error?["key"] as? String == "nosuch.key", "\(missing.output)")
        #expect((error?["error"] as? String)?.contains("no service for key 'nosuch.key'") == true, "\(missing.output)")
        #expect(missing.errors.contains("no service for key 'nosuch.key'"), "\(missing.errors)")
    }

    /// `run --json` prints what `run` prints without it: the load, the slots, the start order and
    /// each service it got (or why not).
    @Test func runJSONHasTheSlotsTheStartOrderAndEachService() async throws {
        let run = try await host(["run", "--json", "--plugins", plugin("ClockPlugin"), "--plugins", plugin("GreeterPlugin")])
        #expect(run.status == 0, "\(run.errors)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        #expect((object?["plugins"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted() == ["clock", "greeter"])
        #expect(object?["started"] as? [String] == ["clock", "greeter"], "\(run.output)")
        let slots = (object?["slots"] as? [[String: Any]])?.compactMap { $0["key"] as? String } ?? []
        #expect(slots.contains("sample.clock") && slots.contains("sample.greeter"), "\(run.output)")
        let services = object?["services"] as? [[String: Any]] ?? []
        #expect(services.count == slots.count)
        #expect(services.contains { $0["key"] as? String == "sample.clock" && $0["service"] is String }, "\(run.output)")
    }
}
