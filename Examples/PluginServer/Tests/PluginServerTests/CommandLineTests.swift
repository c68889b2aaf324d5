import Foundation
import Testing

/// The built server's command line: `--help` and a bad option, before anything is served.
@Suite struct CommandLineTests: BuiltServer {
    let server = builtProducts.appendingPathComponent("plugin-server").path

    @Test(arguments: ["--help", "-h"])
    func helpPrintsEveryOptionOnALineOfItsOwnToStdoutAndExits0(_ flag: String) async throws {
        let (status, stdout, stderr) = try await run(server, [flag])
        #expect(status == 0)
        #expect(stderr.isEmpty, "\(stderr)")
        let lines = stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("usage: plugin-server ") == true, "\(stdout)")
        // Every option, and every route of the server's own (GET /metrics was left out once).
        for option in ["--host ADDRESS", "--port N", "--plugins PATH", "--own-process FILE", "--config FILE", "--handler-timeout SECONDS", "-h, --help",
                       "GET /plugins", "GET /metrics", "GET /compiled/hello"] {
            let described = lines.filter { $0.hasPrefix("  \(option) ") }
            #expect(described.count == 1 && described.first.map { $0.split(separator: " ").count > option.split(separator: " ").count + 2 } == true,
                    "\(option): one line saying what it does: \(stdout)")
        }
    }

    @Test(arguments: [
        (["--frobnicate"], "unknown option '--frobnicate'"),
        (["--port"], "--port needs a value"),
        (["--port", "eighty"], "--port wants a port number from 0 to 65535, not 'eighty'"),
        (["--port", "70000"], "--port wants a port number from 0 to 65535, not '70000'"),
        (["--handler-timeout", "0"], "--handler-timeout wants seconds from 0.01 to 86400, not '0'"),
        (["--plugins", "/tmp", "--bad\u{1B}[2J"], "unknown option '--bad\\u{1B}[2J'"),
    ])
    func aBadOptionSaysWhatIsWrongOnOneLineAndExits2(_ arguments: [String], _ problem: String) async throws {
        let (status, stdout, stderr) = try await run(server, arguments)
        #expect(status == 2)
        #expect(stdout.isEmpty, "\(stdout)")
        #expect(stderr == "plugin-server: \(problem)\nsee plugin-server --help\n", "\(stderr)")
    }

    /// A `--config` file that cannot be used (missing, here) is named with why, before anything is served.
    @Test func aConfigFileThatCannotBeReadSaysWhyAndExits2() async throws {
        let missing = "/nonexistent-\(UUID().uuidString)/plugins.json"
        let (status, stdout, stderr) = try await run(server, ["--config", missing])
        #expect(status == 2)
        #expect(stdout.isEmpty, "\(stdout)")
        #expect(stderr.hasPrefix("plugin-server: the settings file \(missing) ") && stderr.split(separator: "\n").count == 1, "\(stderr)")
    }
}
