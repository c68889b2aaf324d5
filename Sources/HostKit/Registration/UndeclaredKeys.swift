/// A module added other keys than its plugin declared.
struct UndeclaredKeys: Error, CustomStringConvertible {
    let missing: Set<String>
    let extra: Set<String>

    var description: String {
        var parts: [String] = []
        if !missing.isEmpty { parts.append("declared but not added: \(missing.sorted().joined(separator: ", "))") }
        if !extra.isEmpty { parts.append("added but not declared: \(extra.sorted().joined(separator: ", "))") }
        return parts.joined(separator: "; ")
    }
}
