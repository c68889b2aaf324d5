import HostKit

/// The parsed command line.
struct Arguments {
    enum Command: String {
        case run, list, inspect, check, resolve, serve
        /// Hidden: the child of `--isolated`, which loads one plugin and exits.
        case probe = "__probe"
    }

    var command: Command = .run

    /// The file for `inspect`, the key for `resolve`.
    var operand: String?
    /// `resolve`'s parameters, as text: made into the slot's parameters type.
    var param: String?
    var plugins: [String] = []
    /// Loaded besides the default plugins (or those of `--plugins`): `--also PATH`.
    var also: [String] = []
    var json = false
    /// Which files the host accepts, as the options say.
    var discovery = PluginDiscovery()
    var isolated = false
    var probeTimeout: Duration = .seconds(10)
    var startTimeout: Duration = .seconds(30)
    var shutdownTimeout: Duration = .seconds(5)
    var help = false
    var version = false

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(_ words: [String]) throws(UsageError) {
        var rest = words[...]
        if rest.first == "help" {
            // `host help [COMMAND]`, as people type it.
            help = true
            rest = rest.dropFirst()
            if let name = rest.popFirst(), Command(rawValue: name) == nil || name == Command.probe.rawValue {
                throw UsageError(description: "no command '\(name)' to help with")
            }
            guard rest.isEmpty else { throw UsageError(description: "help takes one COMMAND at most") }
            return
        }
        if let first = rest.first, let command = Command(rawValue: first) {
            self.command = command
            rest = rest.dropFirst()
        }
        while let word = rest.popFirst() {
            if let option = Self.flag(word) {
                discovery[keyPath: option] = true
                continue
            }
            switch word {
            case "--plugins", "-p":
                guard let path = rest.popFirst() else { throw UsageError(description: "--plugins needs a path") }
                plugins.append(path)
            case "--also":
                guard let path = rest.popFirst() else { throw UsageError(description: "--also needs a path") }
                also.append(path)
            case "--json": json = true
            case "--param":
                guard command == .resolve, let value = rest.popFirst() else {
                    throw UsageError(description: "--param needs a VALUE, and only resolve takes one")
                }
                param = value
            case "--isolated": isolated = true
            case "--probe-timeout": probeTimeout = try Self.seconds(word, rest.popFirst())
            case "--start-timeout": startTimeout = try Self.seconds(word, rest.popFirst())
            case "--shutdown-timeout": shutdownTimeout = try Self.seconds(word, rest.popFirst())
            case "--help", "-h": help = true
            case "--version": version = true
            default:
                if word.hasPrefix("-") { throw UsageError(description: "unknown option '\(word)'") }
                guard operand == nil, command.takesOperand else {
                    throw UsageError(description: "unexpected argument '\(word)'")
                }
                operand = word
            }
        }
        if json && command == .serve {
            throw UsageError(description: "serve prints no JSON: --json is for run, list, check, inspect and resolve")
        }
        if !help && !version && command.takesOperand && operand == nil {
            throw UsageError(description: "\(command.rawValue) needs \(command == .resolve ? "a KEY" : "a FILE")")
        }
    }

    /// The options a `__probe` child needs to accept the same files.
    var discoveryOptions: [String] {
        Self.discoveryFlags.filter { discovery[keyPath: $0.option] }.map(\.flag)
    }

    /// This command's flag for each option of ``PluginDiscovery``: HostKit's errors name the option
    /// (``PluginLoadError/allowedBy``), the host's own hint names the flag.
    private static var discoveryFlags: [(flag: String, option: WritableKeyPath<PluginDiscovery, Bool>)] {
        [("--allow-untrusted", \.allowUntrusted), ("--allow-other-compiler", \.allowOtherCompilers)]
    }

    /// The discovery option that `flag` sets, if it is one of ``discoveryFlags``.
    private static func flag(_ flag: String) -> WritableKeyPath<PluginDiscovery, Bool>? {
        discoveryFlags.first { $0.flag == flag }?.option
    }

    /// The flag that sets `option`.
    static func flag(for option: WritableKeyPath<PluginDiscovery, Bool>) -> String? {
        discoveryFlags.first { $0.option == option }?.flag
    }

    /// The shortest timeout any option takes, in seconds. A shorter one (0.0001 became 0 ms once) would
    /// fail every plugin: a probe child cannot start and load a plugin, nor a hook's thread be
    /// scheduled, in less.
    static let shortestTimeout = 0.01
    /// The longest, a day.
    static let longestTimeout = 86_400.0

    /// The value of a timeout option: a number of seconds from ``shortestTimeout`` to ``longestTimeout``,
    /// to the millisecond. Every timeout option reads its value here.
    static func seconds(_ option: String, _ text: String?) throws(UsageError) -> Duration {
        guard let text, let seconds = Double(text), seconds >= shortestTimeout, seconds <= longestTimeout else {
            throw UsageError(description: "\(option) needs a number of seconds from \(shortestTimeout) to \(Int(longestTimeout))")
        }
        return .milliseconds(Int((seconds * 1000).rounded()))
    }

    static let usage = """
        usage: host [run] [--plugins PATH]... [--json]   load plugins, list slots, get each plain service
               host list [--plugins PATH]... [--json]    load plugins and list every slot
               host check [--plugins PATH]... [--json]   report every problem; exit 1 if any
               host inspect FILE [--json] [--isolated]   read one plugin's descriptor, register nothing
               host resolve KEY [--param VALUE] [--plugins PATH]... [--json]
                                                         load plugins and get the service for KEY (awaited
                                                         if async; VALUE: its String, integer, floating
                                                         point or Bool parameters)
               host serve [--plugins PATH]...            load and start plugins, run until SIGINT/SIGTERM;
                                                         each SIGHUP reloads them (new, changed and
                                                         removed plugin files)
               host help [COMMAND] | --help | --version

        PATH is a plugin file or a directory of *.so files; repeat --plugins for more. Without it, the
        host reads SWIFT_PLUGIN_PATH (colon-separated), else loads every lib*Plugin.so beside it (after
        `swift build`, the sample plugins). --also PATH loads PATH besides those: your plugin next
        to the samples is `host run --also path/to/libMine.so`.
        --allow-untrusted     also load files others than you or root could have changed
        --allow-other-compiler  also load plugins another Swift toolchain built (it may crash the host)
        --isolated            open and register each plugin in a child process first (after the
                              plugins it requires); one that crashes, hangs or exits there is
                              reported and not loaded. Start and shutdown hooks run in the host only
        --probe-timeout SECS  how long a child may take (default 10)
        --start-timeout SECS  how long each plugin's start hook may take (default 30)
        --shutdown-timeout SECS  how long each plugin's shutdown hook may take (default 5)
        A timeout is a number of seconds from 0.01 to 86400.
        Every command that loads plugins starts them and, before it exits, shuts them down in
        reverse order.
        Exit status: 0 success, 1 problems, 2 usage.
        """
}

extension Arguments.Command {
    var takesOperand: Bool { self == .inspect || self == .resolve || self == .probe }
}
