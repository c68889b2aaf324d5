import Foundation

/// A library's MAJOR.MINOR.PATCH, compared part by part as numbers.
struct SemanticVersion: Comparable, CustomStringConvertible {
    let major: Int
    let minor: Int
    let patch: Int

    /// Reads "MAJOR.MINOR.PATCH" (surrounding blanks and a newline allowed), each part decimal digits
    /// only and at most 65535, as `LibraryVersion` holds them; nil for anything else.
    init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let major = UInt16(parts[0]), let minor = UInt16(parts[1]), let patch = UInt16(parts[2])
        else { return nil }
        self.init(major: Int(major), minor: Int(minor), patch: Int(patch))
    }

    init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    /// Whether this version's major part is above `other`'s: what a break needs.
    func isNewMajor(after other: SemanticVersion) -> Bool { major > other.major }

    /// Whether MAJOR.MINOR is above `other`'s: what an addition needs.
    func isNewMinor(after other: SemanticVersion) -> Bool { (major, minor) > (other.major, other.minor) }

    var description: String { "\(major).\(minor).\(patch)" }
}
