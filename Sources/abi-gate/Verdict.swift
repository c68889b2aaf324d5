/// The version rule, applied to what changed: a break needs a new major version, an addition a new
/// minor one, and a version never goes down. A plugin records the versions it was built against, and a
/// host refuses one built against a release its copy of the library cannot stand in for; the rule keeps
/// those numbers honest, or a host accepts a plugin that then crashes on a missing declaration.
struct Verdict {
    /// Whether the library keeps the rule.
    let passed: Bool
    /// What to print: the comparison, each finding, the verdict and what to do.
    let lines: [String]

    /// Judges `findings` of `module` at `version` against `baseline`.
    init(module: String, version: SemanticVersion, baseline: Baseline, findings: ABIFindings) {
        var lines = ["\(module) \(version), against \(baseline.origin) (\(baseline.version)):"]
        lines += findings.breaks.map { "  break: \($0)" }
        lines += findings.additions.map { "  added: \($0)" }
        let old = baseline.version
        // The least version the changes allow: what to suggest.
        let needed = !findings.breaks.isEmpty ? SemanticVersion(major: old.major + 1, minor: 0, patch: 0)
            : !findings.additions.isEmpty ? SemanticVersion(major: old.major, minor: old.minor + 1, patch: 0) : old
        let declaration = "LibraryVersion(\"\(module)\", \(needed.major), \(needed.minor), \(needed.patch))"
        if version < old {
            lines.append("FAILED: the version went down, from \(old) (the baseline) to \(version). "
                + "Set it to \(declaration) or above.")
            passed = false
        } else if !findings.breaks.isEmpty && !version.isNewMajor(after: old) {
            lines.append("FAILED: the ABI broke and the major version did not change (\(version), baseline \(old)). "
                + "A plugin built against \(old) would crash in a host that has this library, or use what is gone. "
                + "Undo the change, or make it additive (a new protocol requirement needs a default implementation), "
                + "or bump the major version: \(declaration).")
            passed = false
        } else if !findings.additions.isEmpty && !version.isNewMinor(after: old) {
            lines.append("FAILED: declarations were added and the minor version did not change (\(version), baseline \(old)). "
                + "A plugin that uses them would claim a version that hosts with \(old) accept, and crash there. "
                + "Bump the minor version: \(declaration).")
            passed = false
        } else if findings.isEmpty {
            lines.append("ok: no ABI change.")
            passed = true
        } else {
            lines.append("ok: the ABI changed as \(version) allows; \(baseline.atRelease).")
            passed = true
        }
        self.lines = lines
    }
}
