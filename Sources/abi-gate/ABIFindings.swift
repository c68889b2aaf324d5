import Foundation

/// What `swift-api-digester -diagnose-sdk -abi` found between a baseline and the library now, split
/// into breaks and additions.
struct ABIFindings {
    /// Changes a client built against the baseline cannot survive: a declaration removed or changed, a
    /// protocol requirement added without a default...
    let breaks: [String]
    /// Declarations the baseline lacks. The digester reports each as "a new API without '@available'"
    /// (that attribute matters on Apple's platforms only). A new requirement is also reported as a
    /// break; it is listed there only, and so is one whose only default is in a constrained extension
    /// (``breaking(_:)``).
    let additions: [String]

    /// The marker of an addition in the digester's report.
    static let additionMarker = " is a new API without '@available'"

    /// Splits the digester's report: one finding a line, its section headings (`/* Removed Decls */`)
    /// and blank lines dropped.
    init(report: String) {
        let lines = report.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
            !line.isEmpty && !(line.hasPrefix("/*") && line.hasSuffix("*/"))
        }
        let breaks = lines.filter { !$0.hasSuffix(Self.additionMarker) }
        self.breaks = breaks
        additions = lines.filter { line in
            guard line.hasSuffix(Self.additionMarker) else { return false }
            let declaration = line.dropLast(Self.additionMarker.count)
            return !breaks.contains { $0.hasPrefix(declaration + " ") }
        }
    }

    private init(breaks: [String], additions: [String]) {
        self.breaks = breaks
        self.additions = additions
    }

    /// These findings with each of `unwitnessed` (`Func Forecaster.tomorrow()`: a requirement added
    /// whose default an old conformer may not get, see ``UnwitnessedRequirements``) a break, not an
    /// addition, as the digester reports a requirement added without any default.
    func breaking(_ unwitnessed: [String]) -> ABIFindings {
        let named = { (line: String, declaration: String) in line.hasPrefix(declaration + " ") }
        let new = unwitnessed.filter { declaration in !breaks.contains { named($0, declaration) } }
        return ABIFindings(
            breaks: breaks + new.map {
                "\($0) has been added as a protocol requirement whose default implementation is not for every"
                    + " conformer (it is in a constrained extension, or has another signature): a conformer built"
                    + " against the baseline has no witness for it"
            },
            additions: additions.filter { line in !unwitnessed.contains { named(line, $0) } })
    }

    /// Whether the ABI is the baseline's.
    var isEmpty: Bool { breaks.isEmpty && additions.isEmpty }
}
