/// The parsed command line.
struct Arguments {
    enum Command: String {
        case run, list, inspect, check, resolve
        /// Hidden: the child of `--isolated`, which loads one plugin and exits.
        case probe = "__probe"
    }

    var command: Command = .run

    /// The file for `inspect`, the key for `resolve`.
    var operand: String?
    var plugins: [String] = []
    var json = false
    var allowUntrusted = false
    var isolated = false
    var probeTimeout: Duration = .seconds(10)
    var help = false
    var version = false

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(_ words: [String]) throws(UsageError) {
        var rest = words[...]
        if let first = rest.first, let command = Command(rawValue: first) {
            self.command = command
            rest = rest.dropFirst()
        }
        while let word = rest.popFirst() {
            switch word {
            case "--plugins", "-p":
                guard let path = rest.popFirst() else { throw UsageError(description: "--plugins needs a path") }
                plugins.append(path)
            case "--json": json = true
            case "--allow-untrusted": allowUntrusted = true
            case "--isolated": isolated = true
            case "--probe-timeout":
                guard let text = rest.popFirst(), let seconds = Double(text), seconds > 0 else {
                    throw UsageError(description: "--probe-timeout needs a number of seconds")
                }
                probeTimeout = .milliseconds(Int(seconds * 1000))
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
        if !help && !version && command.takesOperand && operand == nil {
            throw UsageError(description: "\(command.rawValue) needs \(command == .resolve ? "a KEY" : "a FILE")")
        }
    }

    static let usage = """
        usage: host [run] [--plugins PATH]... [--json]   load plugins, list slots, use the sample services
               host list [--plugins PATH]... [--json]    load plugins and list every slot
               host check [--plugins PATH]... [--json]   report every problem; exit 1 if any
               host inspect FILE [--json]                read one plugin's descriptor, register nothing
               host resolve KEY [--plugins PATH]...      load plugins and get the service for KEY
               host --help | --version

        PATH is a plugin file or a directory of *.so files; repeat --plugins for more. Without it, the
        host reads SWIFT_PLUGIN_PATH (colon-separated), else loads the sample plugins built beside it.
        --allow-untrusted     also load files others than you or root could have changed
        --isolated            load each plugin in a child process first; one that crashes or hangs
                              there is reported and not loaded
        --probe-timeout SECS  how long a child may take (default 10)
        Exit status: 0 success, 1 problems, 2 usage.
        """
}

extension Arguments.Command {
    var takesOperand: Bool { self == .inspect || self == .resolve || self == .probe }
}
