import Foundation

/// The gate's command line.
struct GateOptions {
    /// Where the baseline comes from.
    enum BaselineSource {
        /// `<Module>.abi.json` and `<Module>.version` in this folder.
        case folder(URL)
        /// The library's sources at this git tag, compiled and dumped.
        case tag(String)
    }

    static let usage = """
        usage: abi-gate MODULE --modules DIR --sources DIR [--baseline DIR | --baseline-tag TAG] [--update]

        Compares the ABI of MODULE (a library built with -enable-library-evolution, its interface in DIR)
        with the baseline of its last release, and enforces the version rule: a break needs a new major
        version, an addition a new minor one. The version is the one LibraryVersion("MODULE", M, m, p)
        in the .swift files under --sources.

          --modules DIR        the build's modules folder (SwiftPM: .build/debug/Modules)
          --sources DIR        the library's sources (its version is read there)
          --baseline DIR       the folder holding MODULE.abi.json and MODULE.version (default: api)
          --baseline-tag TAG   compare with the sources at git tag TAG instead, compiled into a temporary folder
          --update             write MODULE.abi.json and MODULE.version into the baseline folder (at a release),
                               if the library keeps the rule against the baseline there (or there is none)

        Exit status: 0 the rule holds (or the baseline was written), 1 the rule is broken, 2 cannot compare.
        """

    let module: String
    let modules: URL
    let sources: URL
    let baseline: BaselineSource
    let update: Bool

    /// Reads `arguments` (without the program's name); a `GateError.usage` says what is wrong.
    init(_ arguments: [String]) throws {
        var module: String?, modules: URL?, sources: URL?, folder: URL?, tag: String?
        var update = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            func value() throws -> String {
                guard let next = rest.popFirst(), !next.hasPrefix("--") else {
                    throw GateError.usage("abi-gate: \(argument) needs a value\n\(Self.usage)")
                }
                return next
            }
            switch argument {
            case "--modules": modules = URL(fileURLWithPath: try value())
            case "--sources": sources = URL(fileURLWithPath: try value())
            case "--baseline": folder = URL(fileURLWithPath: try value())
            case "--baseline-tag": tag = try value()
            case "--update": update = true
            case _ where argument.hasPrefix("-"):
                throw GateError.usage("abi-gate: unknown option \(argument)\n\(Self.usage)")
            case _ where module == nil: module = argument
            default:
                throw GateError.usage("abi-gate: one module at a time; \(module ?? "") and \(argument) given\n\(Self.usage)")
            }
        }
        guard let module, let modules, let sources else {
            throw GateError.usage("abi-gate: MODULE, --modules and --sources are needed\n\(Self.usage)")
        }
        switch (folder, tag) {
        case (_?, _?):
            throw GateError.usage("abi-gate: --baseline and --baseline-tag are two baselines; give one\n\(Self.usage)")
        case (nil, let tag?):
            guard !update else {
                throw GateError.usage("abi-gate: --update writes a baseline folder; a tag is written with git tag\n\(Self.usage)")
            }
            baseline = .tag(tag)
        case let (folder, nil):
            baseline = .folder(folder ?? URL(fileURLWithPath: "api"))
        }
        self.module = module
        self.modules = modules
        self.sources = sources
        self.update = update
    }
}
