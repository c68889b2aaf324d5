import Foundation
import TestSupport
import Testing

/// The `host` executable (and `sample-tour`), run as a user would: exit status, stdout and stderr.
@Suite struct HostCommandTests {
    struct Run {
        let status: Int32
        let output: String
        let errors: String

        var errorLines: [String] { errors.split(separator: "\n").map(String.init) }
    }

    /// A running `host` (or another executable of the build, or one given by its absolute path), its
    /// stdout and stderr going to files
    /// of its own. Killed, if still running, and its files removed when the value goes away.
    final class Child {
        let process = Process()
        private let folder: TemporaryFolder
        private let outFile: String
        private let errFile: String

        init(_ arguments: [String], executable: String = "host", environment: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable
                                                         : "\(BuiltPlugins.directory)/\(executable)")
            process.arguments = arguments
            var variables = ProcessInfo.processInfo.environment
            variables["SWIFT_PLUGIN_PATH"] = nil
            process.environment = variables.merging(environment) { $1 }
            // Files, not pipes: a child that fills one pipe while we drain the other would never finish.
            folder = try TemporaryFolder()
            outFile = try folder.write("out", [])
            errFile = try folder.write("err", [])
            process.standardOutput = FileHandle(forWritingAtPath: outFile)
            process.standardError = FileHandle(forWritingAtPath: errFile)
            try process.run()
        }

        deinit {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }

        /// What the child wrote to stdout so far.
        var output: String { (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? "" }
        /// What the child wrote to stderr so far.
        var errors: String { (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? "" }
    }

    /// Runs `host` (or `executable`) to its end. Awaited, not waited for: a blocked thread would be one
    /// of the few the async tests beside it run on (under ThreadSanitizer they starved).
    func host(_ arguments: [String], executable: String = "host", environment: [String: String] = [:]) async throws -> Run {
        let child = try Child(arguments, executable: executable, environment: environment)
        _ = try await poll(atMost: .seconds(600)) { !child.process.isRunning }
        child.process.waitUntilExit()
        return Run(status: child.process.terminationStatus, output: child.output, errors: child.errors)
    }

    func plugin(_ product: String) -> String {
        BuiltPlugins.path(product)
    }

    /// A shadow folder on a file system mounted `noexec` (a tmpfs mounted so in a mount namespace of
    /// the host's own, `unshare -m`: the test runs as root, as CI does) loads nothing, and the error
    /// says where, why, and the option to use.
    @Test func aShadowFolderMountedNoexecIsRefusedNamingTheOption() async throws {
        let folder = try TemporaryFolder()
        let mountPoint = folder.file("noexec")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let host = "\(BuiltPlugins.directory)/host"
        let script = "mount -t tmpfs -o noexec tmpfs \"$1\" && exec \"$2\" list --plugins \"$3\" --shadow-folder \"$1\""
        let run = try await self.host(["-m", "/bin/sh", "-c", script, "sh", mountPoint, host, plugin("ClockPlugin")],
                                      executable: "/usr/bin/unshare")
        #expect(run.status == 1, "\(run.output) \(run.errors)")
        #expect(run.errors.contains("\(mountPoint): no plugin was loaded"), "\(run.errors)")
        #expect(run.errors.contains("mounted noexec"), "\(run.errors)")
        #expect(run.errors.contains("--shadow-folder DIR"), "\(run.errors)")
        // Without the option, the same host loads it (the copy goes to TMPDIR).
        let plain = try await self.host(["list", "--plugins", plugin("ClockPlugin")])
        #expect(plain.status == 0, "\(plain.errors)")
    }

    /// Without `--plugins`, `host` loads the plugins built beside it (the samples), lists their slots
    /// and gets each service it can without knowing its type.
    @Test func theDefaultRunLoadsThePluginsBesideItListsSlotsAndGetsEachService() async throws {
        let folder = try TemporaryFolder()
        let journal = folder.file("journal.log")
        let run = try await host([], environment: ["SAMPLE_JOURNAL": journal])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.isEmpty)
        for name in ["loaded clock", "loaded greeter", "loaded notes", "loaded account"] {
            #expect(run.output.contains(name))
        }
        #expect(run.output.contains("KEY"))
        #expect(run.output.contains("(Swift.String) -> SampleContracts.Greeting"))
        #expect(run.output.contains("started:    account, clock, greeter, notes"))
        // Gotten: a `many` slot makes a new value; async and parameter slots are only listed.
        let got = try #require(run.output.components(separatedBy: "KEY                SERVICE\n").last)
        #expect(got.contains("sample.request-id  req-1\n"), "\(run.output)")
        #expect(got.contains("sample.greeter     TimeOfDayGreeter("), "\(run.output)")
        #expect(got.contains("sample.archive     not gotten: async\n"), "\(run.output)")
        #expect(got.contains("sample.greeting    not gotten: needs (Swift.String)\n"), "\(run.output)")
        // Before it exits, the host shuts the plugins down in reverse start order; the archive was
        // never made, so only the journal is closed.
        #expect(run.output.hasSuffix("""

            stopped notes
            closed notes: sample.journal
            stopped greeter
            stopped clock
            stopped account

            """), "\(run.output)")
        // The folder, and the journal in it, are there until here.
        let written = try withExtendedLifetime(folder) { try String(contentsOfFile: journal, encoding: .utf8) }
        #expect(written == "notes started with 4 slots\nnotes stopped\n")
    }

    /// `sample-tour` uses each sample service through its contract, as `host run` did before it knew
    /// no contracts.
    @Test func theSampleTourUsesEachSampleService() async throws {
        let folder = try TemporaryFolder()
        let journal = folder.file("journal.log")
        let run = try await host([], executable: "sample-tour", environment: ["SAMPLE_JOURNAL": journal])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.isEmpty)
        #expect(run.output.contains("started:    account, clock, greeter, notes"))
        #expect(run.output.contains("greeter:    Good "))
        #expect(run.output.contains("greeting:   to Ada: Good "))
        #expect(run.output.contains("request-id: req-1, then req-2"))
        #expect(run.output.contains("same notebook while held: true"))
        #expect(run.output.contains("journal:    \(journal) (open)"))
        #expect(run.output.contains("sessions:   guest -> ada -> guest: same account as before: true, activations 2"))
        #expect(run.output.contains("archive:    8 notes stored by 8 tasks, 1 connection(s) made"))
        #expect(run.output.contains("""

            stopped notes
            closed notes: sample.archive
            closed notes: sample.journal
            stopped greeter
            stopped clock
            stopped account
            journal:    closed after shutdown
            """), "\(run.output)")
        // The folder, and the journal in it, are there until here.
        let written = try withExtendedLifetime(folder) { try String(contentsOfFile: journal, encoding: .utf8) }
        #expect(written == "notes started with 4 slots\nthe tour used the samples\nnotes stopped\n")
    }

    @Test func checkReportsEveryProblemOnStderrOneLineEachAndExitsOne() async throws {
        let fixtures = ["FixtureWrongABI", "FixtureBadMagic", "FixtureNullEntry", "FixtureThrowingModule", "FixtureDuplicateKey"]
        let run = try await host(["check"] + (["ClockPlugin", "GreeterPlugin", "NotesPlugin"] + fixtures)
            .flatMap { ["--plugins", plugin($0)] })
        #expect(run.status == 1)
        #expect(run.errorLines.count == fixtures.count, "\(run.errors)")
        #expect(run.errorLines.allSatisfy { $0.hasPrefix("host: ") })
        #expect(run.errors.contains("libFixtureWrongABI.so: built against PluginAPI 6.0.0, but the copy of PluginAPI loaded for it is 5."))
        #expect(run.errors.contains("libFixtureNullEntry.so: the plugin entry returned nothing"))
        #expect(run.errors.contains("plugin 'fixture-duplicate-clock': key 'sample.clock' is already provided by plugin 'clock'"))
        #expect(run.output.contains("3 loaded, 5 problem(s)"))
    }

    /// A library whose entry symbol is data (a C array named `swift_plugin_entry`) is refused without
    /// being called: calling it would jump into a page that is not executable and kill the host.
    @Test func anEntrySymbolThatIsDataIsRefusedWithoutACall() async throws {
        let run = try await host(["check", "--plugins", plugin("ClockPlugin"), "--plugins", plugin("FixtureDataEntry")])
        #expect(run.status == 1, "\(run.status) \(run.errors)")
        #expect(run.errors.contains("libFixtureDataEntry.so: its entry symbol 'swift_plugin_entry' is not a function "
                                    + "of its own, so it was not called: the file's symbol of that name is data, not a function"),
                "\(run.errors)")
        #expect(run.output.contains("1 loaded, 1 problem(s)"), "\(run.output)")
    }

    /// A plugin whose `.comment` names another toolchain is refused, also in an isolated child,
    /// until `--allow-other-compiler` accepts it.
    @Test func anotherCompilersPluginIsRefusedUnlessAllowed() async throws {
        let folder = try TemporaryFolder()
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: plugin("ClockPlugin"))))
        let needle = Array("clang version ".utf8)
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: needle) }) + needle.count
        bytes[start] = bytes[start] == UInt8(ascii: "9") ? UInt8(ascii: "8") : UInt8(ascii: "9")
        let path = try folder.write("clock.so", bytes, mode: 0o755)
        // The contracts it links, found beside it (through its `$ORIGIN` run path): `host` links none.
        try folder.copy("SampleContracts", as: "libSampleContracts.so")

        for isolation in [[], ["--isolated"]] {
            let refused = try await host(["check", "--plugins", path] + isolation)
            #expect(refused.status == 1, "\(isolation): \(refused.output)")
            #expect(refused.errors.contains("built by another compiler than this host"), "\(refused.errors)")
            #expect(refused.errors.contains("; --allow-other-compiler loads it anyway"), "\(refused.errors)")
            let allowed = try await host(["check", "--allow-other-compiler", "--plugins", path] + isolation)
            #expect(allowed.status == 0, "\(isolation): \(allowed.errors)")
            #expect(allowed.output.contains("1 loaded, 0 problem(s)"), "\(allowed.output)")
        }
    }

    /// A plugin cut short after its last loadable segment still has every segment, but not its section
    /// headers: it is said to be damaged, also with `--allow-other-compiler`, not taken for a library
    /// built by another compiler (whose `.comment` it no longer has) and loaded.
    @Test func aPluginCutShortAfterItsSegmentsIsSaidToBeDamaged() async throws {
        let folder = try TemporaryFolder()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: plugin("ClockPlugin"))))
        func integer<T: FixedWidthInteger>(_ offset: Int, _ type: T.Type) -> Int {
            Int(bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) })
        }
        // The end of the last loadable segment's bytes in the file (PT_LOAD: offset + size in file).
        let table = integer(32, UInt64.self), entrySize = integer(54, UInt16.self), count = integer(56, UInt16.self)
        var segmentsEnd = 0
        for index in 0..<count {
            let entry = table + index * entrySize
            guard integer(entry, UInt32.self) == 1 else { continue }
            let end: Int = integer(entry + 8, UInt64.self) + integer(entry + 32, UInt64.self)
            segmentsEnd = max(segmentsEnd, end)
        }
        #expect(segmentsEnd > 0 && segmentsEnd < bytes.count - 1024)
        let path = try folder.write("clock.so", Array(bytes.prefix(segmentsEnd)), mode: 0o755)
        try folder.copy("SampleContracts", as: "libSampleContracts.so")
        let optionSets: [[String]] = [[], ["--allow-other-compiler"]]
        for options in optionSets {
            let run = try await host(["check", "--plugins", path] + options)
            #expect(run.status == 1, "\(options): \(run.output)")
            #expect(run.errors.contains("truncated or damaged: its section headers end at byte"), "\(run.errors)")
            #expect(!run.errors.contains("another compiler"), "\(run.errors)")
        }
    }

    /// A search path of separators only names nothing: said so, exit 1, instead of a silent empty load.
    @Test func aSearchPathThatNamesNothingIsSaidToFindNoPlugin() async throws {
        for value in [":", ":::"] {
            let run = try await host(["list"], environment: ["SWIFT_PLUGIN_PATH": value])
            #expect(run.status == 1, "\(run.output)")
            #expect(run.errors.contains("the search path '\(value)' names no file or folder: no plugin was found"),
                    "\(run.errors)")
        }
    }

    /// A plugin whose name, version, key, service and shutdown error are escape sequences and
    /// newlines, in a file whose name is one too: every command prints them escaped, on stdout and
    /// stderr, so that no line is forged and the terminal is left alone; JSON keeps them exact.
    @Test func untrustedTextIsPrintedEscapedAndExactInJSON() async throws {
        let folder = try TemporaryFolder()
        let path = try folder.copy("FixtureHostileText", as: "evil\n\u{1B}[2J.so")
        let name = "hostile\u{1B}]0;pwned\u{07}\nhost: loaded fake 9.9"
        for command in [["run"], ["check"], ["list"], ["serve"], ["inspect", path]] {
            let arguments = command + (command[0] == "inspect" ? [] : ["--plugins", path])
            let run = command[0] == "serve"
                ? try await served(arguments, serving: "serving 1 plugin(s)")
                : try await host(arguments)
            for text in [run.output, run.errors] {
                let raw = text.unicodeScalars.filter { $0 != "\n" && isUnprintable($0) }
                #expect(raw.isEmpty, "\(command): \(text.debugDescription)")
                let forged = text.split(separator: "\n").filter { $0.hasPrefix("host: loaded") || $0.hasPrefix("host: stopped")
                    || $0.hasPrefix("host: forged") }
                #expect(forged.isEmpty, "\(command): \(forged)")
            }
            #expect((run.output + run.errors).contains(#"hostile\u{1B}]0;pwned\u{07}\nhost: loaded fake 9.9"#),
                    "\(command): \(run.output)\n\(run.errors)")
        }
        let json = try await host(["check", "--json", "--plugins", path])
        #expect(!json.output.unicodeScalars.contains { $0 != "\n" && isUnprintable($0) }, "\(json.output.debugDescription)")
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: [[String: Any]]]
        #expect(object?["plugins"]?.first?["name"] as? String == name)
        #expect(object?["plugins"]?.first?["path"] as? String == path)
    }

    /// A path that is not UTF-8 is said to be one, as an argument (a usage error: Swift would see
    /// U+FFFD in it) and as a name found in a folder; not "no such file".
    @Test func aPathThatIsNotUTF8IsSaidToBeOne() async throws {
        let folder = try TemporaryFolder()
        // Process takes Strings, which cannot hold the byte: a shell makes it.
        let script = #"exec "$0" check --plugins "$1/$(printf 'plug\377in.so')""#
        let argument = try await host(["-c", script, "\(BuiltPlugins.directory)/host", folder.path], executable: "/bin/sh")
        #expect(argument.status == 2, "\(argument.errors)")
        #expect(argument.errors.contains("host: the argument '\(folder.path)/plug\\xFFin.so' is not valid UTF-8"),
                "\(argument.errors)")

        let valid = try folder.copy("ClockPlugin", as: "valid.so")
        let name: [CChar] = (Array("\(folder.path)/plug".utf8) + [0xFF] + Array("in.so".utf8) + [0]).map { CChar(bitPattern: $0) }
        try #require(rename(valid, name) == 0)
        defer { unlink(name) }
        let scanned = try await host(["check", "--plugins", folder.path])
        #expect(scanned.status == 1)
        #expect(scanned.errors == "host: \(folder.path)/plug\\xFFin.so: the file name is not valid UTF-8; rename it to load it\n",
                "\(scanned.errors)")
    }

    /// What a terminal acts on or does not show.
    func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// `host serve …` until it serves, then SIGTERM: what it printed.
    func served(_ arguments: [String], serving line: String) async throws -> Run {
        let child = try await serveUntilSignalled(arguments, environment: [:], serving: line, signal: SIGTERM)
        return Run(status: child.process.terminationStatus, output: child.output, errors: child.errors)
    }

    @Test func helpAndVersionExitZero() async throws {
        for words in [["--help"], ["help"], ["help", "resolve"]] {
            let help = try await host(words)
            #expect(help.status == 0 && help.output.contains("usage: host"), "\(words): \(help.errors)")
        }
        let version = try await host(["--version"])
        #expect(version.status == 0 && version.output.contains("(PluginAPI 5."))
    }

    /// Runs `host` with `arguments` (a `serve`), signals it as soon as it prints `serving`, as a
    /// supervisor would (the signals must be handled by then), and returns it once it exited normally.
    func serveUntilSignalled(_ arguments: [String], environment: [String: String], serving line: String,
                             signal: Int32) async throws -> Child {
        let child = try Child(arguments, environment: environment)
        let serving = try await poll(atMost: .seconds(30), every: .milliseconds(1)) { child.output.contains(line) }
        try #require(serving, "no serving line within 30 s; stdout: \(child.output)\nstderr: \(child.errors)")
        #expect(kill(child.process.processIdentifier, signal) == 0)
        let exited = try await poll(atMost: .seconds(30)) { !child.process.isRunning }
        try #require(exited, "still running 30 s after signal \(signal); stdout: \(child.output)")
        try #require(child.process.terminationReason == .exit, "ended by signal \(child.process.terminationStatus)")
        return child
    }

    /// `host serve`, as a service manager runs it: it says it serves, and a signal shuts it down
    /// cleanly (exit status 0), the plugins' shutdown hooks run in reverse start order.
    @Test(arguments: [SIGTERM, SIGINT])
    func serveShutsThePluginsDownOnASignalAndExitsZero(_ signal: Int32) async throws {
        let folder = try TemporaryFolder()
        let journal = folder.file("journal.log")
        let child = try await serveUntilSignalled(["serve"], environment: ["SAMPLE_JOURNAL": journal],
                                                  serving: "serving 4 plugin(s)", signal: signal)
        #expect(child.process.terminationStatus == 0, "\(child.errors)")
        #expect(child.errors.isEmpty)
        #expect(child.output.contains("""
            signal \(signal): shutting down
            stopped notes
            closed notes: sample.journal
            stopped greeter
            stopped clock
            stopped account
            """), "\(child.output)")
        #expect(try withExtendedLifetime(folder) { try String(contentsOfFile: journal, encoding: .utf8) }
            .hasSuffix("notes stopped\n"))
    }

    /// A plugin whose shutdown hook fails makes the exit status 1 and says why, at a normal exit
    /// and when `serve` shuts down on a signal.
    @Test func aFailedShutdownIsReportedAndExitsOne() async throws {
        let refuse = ["HOSTKIT_FIXTURE_LIFECYCLE_THROW": "shutdown a"]
        let withControl = ["--plugins", plugin("FixtureQuietControl"), "--plugins", plugin("FixtureLifecycleA")]
        let check = try await host(["check", "--start"] + withControl, environment: refuse)
        #expect(check.status == 1, "\(check.output)\n\(check.errors)")
        #expect(check.errors.contains("fixture refused to shutdown a"), "\(check.errors)")

        let child = try await serveUntilSignalled(["serve"] + withControl,
                                                  environment: refuse, serving: "serving 2 plugin(s)", signal: SIGTERM)
        #expect(child.process.terminationStatus == 1, "\(child.output)\n\(child.errors)")
        #expect(child.errors.contains("fixture refused to shutdown a"), "\(child.errors)")
    }
}
