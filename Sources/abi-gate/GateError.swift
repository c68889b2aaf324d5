/// Why the gate could not compare a library with its baseline: no verdict, so exit 2, not 1.
enum GateError: Error, CustomStringConvertible {
    /// The command line is wrong; the text says how.
    case usage(String)
    /// No baseline where the gate looked.
    case noBaseline(module: String, looked: String)
    /// One of the baseline's two files is there and the other is not: no comparison, and no first
    /// baseline written over it.
    case halfBaseline(module: String, there: String, missing: String)
    /// The library was not built, or not built for library evolution (no module interface).
    case noBuiltModule(module: String, modules: String)
    /// The sources hold no `LibraryVersion("Module", M, m, p)`, or more than one.
    case versionDeclaration(module: String, sources: String, found: [String])
    /// A baseline's version file does not hold MAJOR.MINOR.PATCH.
    case badVersionFile(path: String, text: String)
    /// A tool the gate runs (git, swiftc, swift-api-digester) failed; `output` is what it said.
    case toolFailed(what: String, output: String)

    var description: String {
        switch self {
        case let .usage(text):
            return text
        case let .noBaseline(module, looked):
            return """
                cannot compare \(module): no baseline (looked for \(looked)).
                At a release, write it: `swift package --allow-writing-to-package-directory check-abi --update` \
                (or `abi-gate \(module) ... --update`); or compare with a release's git tag: --baseline-tag TAG.
                """
        case let .halfBaseline(module, there, missing):
            return """
                cannot compare \(module): half a baseline (\(there) is there, \(missing) is not). \
                Restore \(missing) from the release that wrote \(there) (git), so that the release is compared with; \
                --update writes a first baseline only where neither file is.
                """
        case let .noBuiltModule(module, modules):
            return """
                cannot compare \(module): no module interface \(module).swiftinterface in \(modules). \
                Build it first (swift build), with -enable-library-evolution: only such a library has a stable ABI to check.
                """
        case let .versionDeclaration(module, sources, found):
            let seen = found.isEmpty ? "none" : found.joined(separator: ", ")
            return """
                cannot read \(module)'s version: expected one LibraryVersion("\(module)", MAJOR, MINOR, PATCH) \
                in the .swift files of \(sources), found: \(seen)
                """
        case let .badVersionFile(path, text):
            return "cannot read the baseline's version: \(path) holds \"\(text)\", not MAJOR.MINOR.PATCH"
        case let .toolFailed(what, output):
            let said = output.trimmingCharacters(in: .whitespacesAndNewlines)
            return "cannot compare: \(what) failed" + (said.isEmpty ? "" : ":\n\(said)")
        }
    }
}
