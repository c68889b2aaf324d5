/// One file `host new` writes: its path in the new package and its text.
struct ScaffoldFile {
    /// Relative to the package's folder, such as `Sources/ForecastPlugin/ForecastPlugin.swift`.
    let path: String
    let text: String
    /// Written with mode 0755 (a script), else 0644.
    var executable = false

    /// What a package's build writes, kept out of git: the build folder, and the resolved versions
    /// (each package depends on its siblings by path, so there is nothing to pin).
    static let gitignore = ScaffoldFile(path: ".gitignore", text: ".build\nPackage.resolved\n")

    /// `text` as a Swift string literal, quotes included: a path may hold a quote or a backslash.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
