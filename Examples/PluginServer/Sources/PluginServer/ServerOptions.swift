import Foundation
import HostKit

/// What plugin-server's command line asks for.
struct ServerOptions {
    var address = "127.0.0.1"
    var port = 8080
    /// The `--plugins` paths, in order.
    var paths: [String] = []
    /// Seconds a plugin's handler has to answer a request.
    var handlerTimeout = 5.0
    /// The `--own-process` file names: plugins each served from a process of its own.
    var ownProcess: Set<String> = []
    /// The `--config` file: the plugins' settings, and where each plugin file runs (its `placement`).
    var config: String?

    /// The first argument that makes the executable the child of a plugin placed in a process of its own.
    static let serveOnePluginArgument = "__serve-plugin"
    /// What turns the test fixtures among the plugins on (they are inert without it).
    static let fixturesVariable = "PLUGIN_SERVER_FIXTURES"

    /// Processes of this executable for the ``ownProcess`` plugins, restarted as HostKit's defaults
    /// say; nil if no plugin may run in one (no `--own-process`, no `--config` to place one).
    func pluginProcesses() -> PluginProcesses? {
        guard !ownProcess.isEmpty || config != nil else { return nil }
        // The running image, even once the file it came from is replaced (a rebuild): a child restarted
        // or moved out later is the same program as the server.
        let executable = "/proc/self/exe"
        // A sandboxed child gets none of the server's variables: the test fixtures' switch is passed on by name.
        let passed = ProcessInfo.processInfo.environment.filter { $0.key == Self.fixturesVariable }
        return PluginProcesses(executable: executable, arguments: [Self.serveOnePluginArgument], files: ownProcess,
                               environment: passed)
    }

    /// What a command line comes to.
    enum Parsed {
        case run(ServerOptions)
        /// `--help` or `-h`: print ``usage`` and exit 0.
        case help
        /// One line saying what is wrong (untrusted text escaped): print it and exit 2.
        case wrong(String)
    }

    /// The full usage, every option on a line of its own, for `--help`.
    static let usage = """
        usage: plugin-server [--host ADDRESS] [--port N] [--handler-timeout SECONDS] [--plugins PATH]... [--own-process FILE]... [--config FILE]

        Serves over HTTP the routes of the route plugins found in each PATH, beside its own:
          GET /plugins               the plugins loaded and their slots, as JSON
          GET /metrics               the host's counts of its plugins, in Prometheus' text format
          GET /compiled/hello        the hello route compiled in, to compare a plugin's route with
        SIGHUP reloads the plugins; SIGTERM or SIGINT lets the requests in flight finish, then stops the
        plugins in reverse order.

        options:
          --host ADDRESS             listen on ADDRESS (default 127.0.0.1)
          --port N                   listen on TCP port N, 0 to 65535, 0 for any free one (default 8080)
          --plugins PATH             load the plugins in PATH, a folder of lib*.so or one file; repeat for more (none: a warning, the server's own routes only)
          --own-process FILE         serve the plugin of the file named FILE (lib<Name>.so) from a process of its own, restarted if it ends; its routes must be distributed (DistributedRouteHandler); repeat for more
          --config FILE              the plugins' settings ("plugins": {NAME: {...}}) and placements ("placement": {FILE: "own-process" or "in-process"}), read again at each SIGHUP: a plugin whose placement changed moves there
          --handler-timeout SECONDS  answer 503 to a request a plugin's handler has not answered within SECONDS, 0.01 to 86400 (default 5)
          -h, --help                 print this help and exit

        example (in Examples/PluginServer, after `swift build -c release`):
          .build/release/plugin-server --plugins .build/release
          curl 'http://127.0.0.1:8080/hello?name=Ada'      # Hello, Ada!
          curl http://127.0.0.1:8080/plugins               # the plugins loaded and their slots, as JSON
          kill -HUP <pid>                                  # load the plugins again: an upgraded file, a new one

        """

    /// Reads `arguments` (without the program's name).
    static func parse(_ arguments: [String]) -> Parsed {
        var options = ServerOptions()
        var rest = arguments[...]
        while let word = rest.popFirst() {
            if word == "--help" || word == "-h" { return .help }
            guard ["--host", "--port", "--plugins", "--own-process", "--config", "--handler-timeout"].contains(word) else {
                return .wrong("unknown option '\(TerminalText.escaped(word))'")
            }
            guard let value = rest.popFirst() else { return .wrong("\(word) needs a value") }
            switch word {
            case "--host":
                options.address = value
            case "--port":
                guard let port = Int(value), (0...65_535).contains(port) else {
                    return .wrong("--port wants a port number from 0 to 65535, not '\(TerminalText.escaped(value))'")
                }
                options.port = port
            case "--plugins":
                options.paths.append(value)
            case "--own-process":
                options.ownProcess.insert(value)
            case "--config":
                options.config = value
            default:
                guard let seconds = Double(value), (0.01...86_400).contains(seconds) else {
                    return .wrong("--handler-timeout wants seconds from 0.01 to 86400, not '\(TerminalText.escaped(value))'")
                }
                options.handlerTimeout = seconds
            }
        }
        return .run(options)
    }
}
