import HostKit
import PluginAPI

/// The parsed command line.
struct Arguments {
    enum Command: String {
        case run, list, inspect, check, resolve, serve, new
        /// Hidden: the child of `--isolated`, which loads one plugin and exits.
        case probe = "__probe"
        /// Hidden: the process of a plugin placed in one of its own (`--own-process`), which serves
        /// the host on descriptor 3 until the host closes it.
        case servePlugin = "__serve-plugin"

        /// True for the commands the host runs as its own children, which no help names.
        var isHidden: Bool { self == .probe || self == .servePlugin }
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
    /// `--log-level [PLUGIN=]LEVEL`: the level plugins' own logs write at (info unless given), and
    /// the plugins given one of their own.
    var logLevel = PluginLog.Level.info
    var pluginLogLevels: [String: PluginLog.Level] = [:]
    /// `--config FILE`: each plugin's own settings, under `plugins.NAME` of a JSON file.
    var settings: PluginSettingsFile?
    /// `--own-process FILE`... and the options of those processes (no process without `--own-process`).
    var ownProcess = OwnProcessArguments()
    /// `list --start`, `check --start`: run the start and shutdown hooks, which those commands
    /// otherwise do not.
    var start = false
    /// `serve --strict`: refuse to serve a load with problems.
    var strict = false
    var help = false
    /// The command `host help COMMAND` (or `host COMMAND --help`) asks about; nil for the general help.
    var helpCommand: Command?
    var version = false
    /// What `new` writes, and where.
    var new: NewArguments?

    /// A command line the host cannot run: what is wrong, in one line, and the command whose help
    /// tells how it goes (nil: the general help).
    struct UsageError: Error, CustomStringConvertible {
        let description: String
        var command: Command?

        /// The line that follows the error: where to read how it goes.
        var hint: String {
            // A hidden command has no help of its own: the probe's is inspect's, the plugin process's the general one.
            let topic = command == .probe ? .inspect : command == .servePlugin ? nil : command
            return "see 'host help\(topic.map { " \($0.rawValue)" } ?? "")' for how it goes"
        }
    }

    init(_ words: [String]) throws(UsageError) {
        var rest = words[...]
        if rest.first == "help" {
            // `host help [COMMAND]`, as people type it.
            help = true
            rest = rest.dropFirst()
            // `host help help` is the general help, which says how `help` goes.
            if let name = rest.popFirst(), name != "help" {
                guard let command = Command(rawValue: name), !command.isHidden else {
                    throw UsageError(description: "no command '\(name)' to help with")
                }
                helpCommand = command
            }
            guard rest.isEmpty else { throw UsageError(description: "help takes one COMMAND at most") }
            return
        }
        if let first = rest.first, let command = Command(rawValue: first) {
            self.command = command
            rest = rest.dropFirst()
        } else if let first = rest.first, !first.hasPrefix("-") {
            throw UsageError(description: "unknown command '\(first)'")
        }
        do throws(UsageError) {
            if command != .new {
                try parse(&rest)
            } else if rest.contains(where: { $0 == "--help" || $0 == "-h" }) {
                (help, helpCommand) = (true, .new)
            } else {
                new = try NewArguments(rest)
            }
        } catch {
            // Every error of a command's line points to that command's help.
            throw UsageError(description: error.description, command: explicitCommand(words))
        }
    }

    /// The command the words name, if they name one (`host --plugins x` runs `run` without naming it).
    private func explicitCommand(_ words: [String]) -> Command? {
        words.first.flatMap(Command.init(rawValue:))
    }

    /// Which commands take `option` (one only some commands take), if `option` is such an option.
    private static func commands(taking option: String) -> [Command]? {
        switch option {
        case "--param": [.resolve]
        case "--json": [.run, .list, .check, .inspect, .resolve, .probe]
        case "--start": [.list, .check]
        case "--strict": [.serve]
        case "--in", "--host-package", "--contracts", "--distributed": [.new]
        case "--config": [.run, .list, .check, .resolve, .serve, .probe]
        case _ where OwnProcessArguments.options.contains(option): [.run, .list, .check, .resolve, .serve]
        default: nil
        }
    }

    /// The options and operand after the command.
    private mutating func parse(_ rest: inout ArraySlice<String>) throws(UsageError) {
        while let word = rest.popFirst() {
            if let takers = Self.commands(taking: word), !takers.contains(command) {
                let names = takers.filter { !$0.isHidden }.map(\.rawValue)
                throw UsageError(description: "\(word) is not an option of \(command.rawValue)"
                    + " (only \(names.joined(separator: ", ")) \(names.count == 1 ? "takes" : "take") it)")
            }
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
            case "--shadow-folder":
                guard let path = rest.popFirst() else { throw UsageError(description: "--shadow-folder needs a folder") }
                discovery.shadowFolder = path
            case "--digests":
                guard let path = rest.popFirst() else { throw UsageError(description: "--digests needs a FILE") }
                do {
                    discovery.fileCheck = try DigestAllowlist(contentsOf: path)
                } catch {
                    throw UsageError(description: "--digests: \(error)")
                }
            case "--config":
                guard let path = rest.popFirst() else { throw UsageError(description: "--config needs a FILE") }
                do {
                    settings = try PluginSettingsFile(contentsOf: path)
                } catch {
                    throw UsageError(description: "--config: \(error)")
                }
            case "--log-level": try parseLogLevel(rest.popFirst())
            case "--json": json = true
            case "--param":
                guard let value = rest.popFirst() else { throw UsageError(description: "--param needs a VALUE") }
                guard param == nil else { throw UsageError(description: "--param is given twice: the slot takes one VALUE") }
                param = value
            case "--start": start = true
            case "--strict": strict = true
            case "--isolated": isolated = true
            case "--probe-timeout": probeTimeout = try Self.seconds(word, rest.popFirst())
            case "--start-timeout": startTimeout = try Self.seconds(word, rest.popFirst())
            case "--shutdown-timeout": shutdownTimeout = try Self.seconds(word, rest.popFirst())
            case _ where OwnProcessArguments.options.contains(word):
                try ownProcess.parse(word, rest.popFirst())
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
        // A settings file's `placement` may move plugins into processes of their own: their options count.
        if settings == nil { try ownProcess.requireFiles() }
        if help { helpCommand = command == .run ? nil : command }
        if !help && !version && command.takesOperand && operand == nil {
            throw UsageError(description: "\(command.rawValue) needs \(command == .resolve ? "a KEY" : "a FILE")")
        }
    }

    /// `--log-level`'s value: `LEVEL` for every plugin, or `PLUGIN=LEVEL` for one.
    private mutating func parseLogLevel(_ value: String?) throws(UsageError) {
        let levels = PluginLog.Level.allCases.map(\.rawValue).joined(separator: ", ")
        guard let value else { throw UsageError(description: "--log-level needs a LEVEL or PLUGIN=LEVEL (\(levels))") }
        let parts = value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard let level = parts.last.flatMap({ PluginLog.Level(rawValue: String($0)) }), parts.first?.isEmpty == false else {
            throw UsageError(description: "--log-level takes a LEVEL or PLUGIN=LEVEL, a level being one of \(levels); "
                             + "'\(value)' is neither")
        }
        if parts.count == 2 { pluginLogLevels[String(parts[0])] = level } else { logLevel = level }
    }

    /// The options a `__probe` or `__serve-plugin` child needs to accept the same files.
    var discoveryOptions: [String] {
        Self.discoveryFlags.filter { discovery[keyPath: $0.option] }.map(\.flag)
            + (discovery.shadowFolder.map { ["--shadow-folder", $0] } ?? [])
            + ((discovery.fileCheck as? DigestAllowlist).map { ["--digests", $0.path] } ?? [])
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
}

extension Arguments.Command {
    var takesOperand: Bool { self == .inspect || self == .resolve || self == .probe }
}
