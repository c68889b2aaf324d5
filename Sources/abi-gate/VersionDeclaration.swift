import Foundation

/// A library's version as its sources declare it: its one `LibraryVersion("Module", MAJOR, MINOR, PATCH)`,
/// the value compiled into every plugin built against it. Reading it from there leaves nothing to keep
/// in step by hand.
enum VersionDeclaration {
    /// The version declared in the `.swift` files under `sources` (the manifest and hidden or build
    /// folders left out). Throws if there is none, or more than one distinct value.
    static func read(module: String, in sources: URL) throws -> SemanticVersion {
        let quoted = NSRegularExpression.escapedPattern(for: module)
        let pattern = try NSRegularExpression(
            pattern: #"LibraryVersion\(\s*""# + quoted + #""\s*,\s*([0-9]+)\s*,\s*([0-9]+)\s*,\s*([0-9]+)\s*\)"#)
        var found = Set<String>()
        for file in swiftFiles(in: sources) {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let parts = (1...3).compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
                found.insert(parts.joined(separator: "."))
            }
        }
        guard found.count == 1, let only = found.first, let version = SemanticVersion(only) else {
            throw GateError.versionDeclaration(module: module, sources: sources.path, found: found.sorted())
        }
        return version
    }

    /// The library's own `.swift` files under `folder`: not the manifest, nothing under a hidden folder
    /// (`.build`, `.swiftpm`, `.git`).
    static func swiftFiles(in folder: URL) -> [URL] {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil,
                                                   options: [.skipsHiddenFiles])
        return (files?.compactMap { $0 as? URL } ?? []).filter { file in
            let name = file.lastPathComponent
            return name.hasSuffix(".swift") && name != "Package.swift" && !name.hasPrefix("Package@swift")
        }.sorted { $0.path < $1.path }
    }
}
