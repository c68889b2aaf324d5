/// The command line of `host new KIND NAME`: what to write, and where.
struct NewArguments {
    /// What `host new` writes.
    enum Kind: String {
        /// A plugin package: one dynamic library the host loads.
        case plugin
        /// A contract library package: the protocols and keys plugins share.
        case contracts

        /// The suffix of the package's name (its folder, target and library), unless NAME ends in it.
        var suffix: String {
            switch self {
            case .plugin: "Plugin"
            case .contracts: "Contracts"
            }
        }
    }

    var kind: Kind
    /// NAME, as given: a Swift identifier.
    var name: String
    /// `--in FOLDER`: the package's folder, which must not exist or be empty. Default: the package's
    /// name, in the current folder.
    var folder: String?
    /// `--host-package PATH`: the SwiftPluginHost package to depend on. Default: the one this `host`
    /// was built from.
    var hostPackage: String?
    /// `--contracts PATH`, `new plugin` only: a contracts package `host new contracts` wrote.
    var contracts: String?
    /// `--distributed`: a contract whose services can be served from a process of their own (a
    /// `@Resolvable` distributed-actor protocol), or a plugin serving one as a distributed actor.
    var distributed = false
    /// `--uses`, `new plugin` only, with `--contracts`: the plugin requires the contract's service and
    /// calls it, rather than providing it.
    var uses = false

    /// Parses the words after `new`.
    init(_ words: ArraySlice<String>) throws(Arguments.UsageError) {
        var rest = words
        guard let word = rest.popFirst() else { throw Self.error("new needs what to write: plugin or contracts") }
        guard let kind = Kind(rawValue: word) else {
            throw Self.error("new writes a plugin or contracts, not '\(word)'")
        }
        self.kind = kind
        var name: String?
        while let word = rest.popFirst() {
            switch word {
            case "--in": folder = try Self.value(of: word, rest.popFirst(), "a FOLDER")
            case "--host-package": hostPackage = try Self.value(of: word, rest.popFirst(), "a PATH")
            case "--distributed": distributed = true
            case "--uses":
                guard kind == .plugin else { throw Self.error("--uses is an option of new plugin, not of new contracts") }
                uses = true
            case "--contracts":
                guard kind == .plugin else {
                    throw Self.error("--contracts is an option of new plugin, not of new contracts")
                }
                contracts = try Self.value(of: word, rest.popFirst(), "the PATH of a contracts package")
            default:
                if word.hasPrefix("-") { throw Self.error("unknown option '\(word)' of new \(kind.rawValue)") }
                guard name == nil else { throw Self.error("unexpected argument '\(word)': new \(kind.rawValue) takes one NAME") }
                name = word
            }
        }
        guard let name else { throw Self.error("new \(kind.rawValue) needs a NAME") }
        if uses && contracts == nil {
            throw Self.error("new plugin --uses calls a contract's service: name its package with --contracts PATH")
        }
        if uses && distributed {
            throw Self.error("new plugin --distributed serves a contract's service, --uses calls one: give one of them")
        }
        if distributed && kind == .plugin && contracts == nil {
            throw Self.error("new plugin --distributed serves a distributed contract: name its package with --contracts PATH")
        }
        guard Self.isIdentifier(name) else {
            throw Self.error("'\(name)' is no NAME: it must be a Swift identifier of ASCII letters, digits and _,"
                             + " not starting with a digit")
        }
        self.name = name
    }

    /// Whether `name` can name a package, a module, a type and a C symbol as it is.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    /// An option's value; options cannot follow in its place.
    private static func value(of option: String, _ value: String?, _ what: String) throws(Arguments.UsageError) -> String {
        guard let value, !value.hasPrefix("-"), !value.isEmpty else { throw error("\(option) needs \(what)") }
        return value
    }

    private static func error(_ text: String) -> Arguments.UsageError {
        Arguments.UsageError(description: text, command: .new)
    }
}
