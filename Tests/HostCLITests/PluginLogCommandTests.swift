import Foundation
import TestSupport
import Testing

/// `--log-level`: a plugin's own log lines on stderr, with its name and version, escaped, at the
/// level given for every plugin or for that one.
extension HostCommandTests {
    @Test func aPluginsLogLinesArePrintedWithItsNameAtTheLevelGiven() async throws {
        let run = try await host(["run", "--plugins", plugin("FixtureLogger")])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.errorLines.filter { $0.hasPrefix("host: [") }
        #expect(lines.first == "host: [fixture-logger 1.2.3] info: registering keys=1", "\(run.errors)")
        #expect(lines.contains("host: [fixture-logger 1.2.3] warning: hostile \\u{1B}[2J\\nsecond line \"key\\u{07}\"=\"value\\r\""),
                "\(run.errors)")
        #expect(lines.last == "host: [fixture-logger 1.2.3] notice: shutting down", "\(run.errors)")
        #expect(!lines.contains { $0.contains("] debug: ") || $0.contains("] trace: ") }, "\(run.errors)")

        let quiet = try await host(["run", "--plugins", plugin("FixtureLogger"), "--log-level", "trace",
                                    "--log-level", "fixture-logger=error"])
        #expect(quiet.errorLines.filter { $0.hasPrefix("host: [") } == [
            "host: [fixture-logger 1.2.3] error: at error", "host: [fixture-logger 1.2.3] critical: at critical",
        ], "\(quiet.errors)")

        let wrong = try await host(["run", "--plugins", plugin("FixtureLogger"), "--log-level", "fixture-logger=loud"])
        #expect(wrong.status == 2)
        #expect(wrong.errorLines.first?.hasPrefix("host: --log-level takes a LEVEL or PLUGIN=LEVEL") == true, "\(wrong.errors)")
    }
}
