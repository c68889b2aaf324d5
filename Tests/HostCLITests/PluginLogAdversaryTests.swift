import Foundation
import TestSupport
import Testing

/// A plugin's own log on `host`'s stderr, as an attacker or a careless plugin author drives it: each
/// line whole whatever writes beside it, a stderr that fails costs lines, never the host, and every
/// odd `--log-level` is a usage error.
extension HostCommandTests {
    /// `host run --plugins PLUGIN`, its stderr redirected by `redirection` (a shell's), as `sh` runs it.
    private func hostRun(_ plugin: String, stderr redirection: String) async throws -> Run {
        let host = "\(BuiltPlugins.directory)/host"
        return try await self.host(["-c", "exec \"$0\" run --plugins \"$1\" \(redirection)", host, self.plugin(plugin)],
                                   executable: "/bin/sh")
    }

    /// Eight threads of a plugin write lines of 200,000 bytes at once to a stderr that is a pipe
    /// (which takes at most 64 KiB in one write): each line comes out whole, none cut into another.
    @Test func linesWrittenAtOnceByManyThreadsComeOutWholeOnAPipe() async throws {
        // stderr into a pipe that `cat` empties to stdout, the file the test reads; stdout away.
        let run = try await hostRun("FixtureLogFlood", stderr: "2>&1 >/dev/null | cat")
        let prefix = "host: [fixture-log-flood 1.0.0] info: "
        let lines = run.output.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { $0.dropFirst(prefix.count) }
        let whole = lines.filter { line in line.count == 200_000 && line.allSatisfy { $0 == line.first } }
        #expect(lines.count == 32 && whole.count == 32,
                "\(lines.count) lines, \(whole.count) whole: \(lines.map { "\($0.count) bytes from \($0.prefix(1))" })")
        #expect(Set(whole.compactMap(\.first)) == Set("abcdefgh"))
    }

    /// A stderr every write to fails (`/dev/full`: no space left) loses the plugin's lines, as it
    /// loses the host's own; the host runs its plugin and ends as it would.
    @Test func aStderrThatFailsLosesThePluginsLinesNotTheHost() async throws {
        let run = try await hostRun("FixtureLogger", stderr: "2>/dev/full")
        #expect(run.status == 0, "status \(run.status): \(run.output)")
        let quiet = try await hostRun("FixtureLogger", stderr: "--log-level critical 2>/dev/full")
        #expect(quiet.status == 0, "status \(quiet.status): \(quiet.output)")
    }

    /// Every odd value of `--log-level` is a usage error (status 2) that names it, escaped.
    @Test(arguments: ["", "=", "=info", "fixture-logger=", "INFO", "info ", " info", "a=b=info", "a==info",
                      "fixture-logger=INFO", "\u{1B}[2J", "--plugins", "info\n", "Info", "warn", "fatal", "0"])
    func anOddLogLevelIsAUsageError(_ value: String) async throws {
        let run = try await host(["run", "--plugins", plugin("FixtureLogger"), "--log-level", value])
        #expect(run.status == 2, "\(run.errors)")
        #expect(run.errorLines.first?.hasPrefix("host: --log-level takes a LEVEL or PLUGIN=LEVEL") == true, "\(run.errors)")
        #expect(run.errorLines.count == 2 && !run.errors.contains("\u{1B}"), "\(run.errors)")
    }

    /// `--log-level` with nothing after it says what it needs.
    @Test func aLogLevelWithNoValueIsAUsageError() async throws {
        let run = try await host(["run", "--plugins", plugin("FixtureLogger"), "--log-level"])
        #expect(run.status == 2, "\(run.errors)")
        #expect(run.errorLines.first?.hasPrefix("host: --log-level needs a LEVEL or PLUGIN=LEVEL") == true, "\(run.errors)")
    }
}
