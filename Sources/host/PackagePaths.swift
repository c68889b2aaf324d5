import Foundation

/// The folders `host new` reads and writes: the SwiftPluginHost package a new package depends on,
/// and how the new package's manifest names another folder.
enum PackagePaths {
    /// Whether `folder` holds the SwiftPluginHost package: a `Package.swift` whose package is named
    /// so (a plugin's manifest names it too, as a dependency, which is not enough).
    static func isHostPackage(_ folder: String) -> Bool {
        guard let manifest = try? String(contentsOfFile: folder + "/Package.swift", encoding: .utf8) else { return false }
        return manifest.range(of: #"Package\(\s*name:\s*"SwiftPluginHost""#, options: .regularExpression) != nil
    }

    /// The package this `host` was built from: the nearest folder above its executable (which
    /// `swift build` puts in the package's `.build`) that holds it.
    static func runningHostPackage() -> String? {
        guard let executable = Bundle.main.executablePath.flatMap(real) else { return nil }
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while folder.path != "/" {
            if isHostPackage(folder.path) { return folder.path }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// The running `host`'s executable, as a command to print: its absolute path, which works from any folder.
    static var hostCommand: String {
        Bundle.main.executablePath.flatMap(real) ?? "host"
    }

    /// `path` made absolute, every symbolic link resolved; nil if it is not there.
    static func real(_ path: String) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// How a manifest in `folder` names `target` (both real paths): relative when the two share a
    /// folder below `/` (`../SwiftPluginHost`), so that moving them together keeps the package
    /// building; absolute otherwise, as `../../../work/x` would only obscure it.
    static func relative(_ target: String, from folder: String) -> String {
        let targetParts = target.split(separator: "/")
        let folderParts = folder.split(separator: "/")
        let shared = zip(targetParts, folderParts).prefix { $0 == $1 }.count
        guard shared > 0 else { return target }
        let up = Array(repeating: "..", count: folderParts.count - shared)
        let down = targetParts.dropFirst(shared).map(String.init)
        let parts = up + down
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// `text` as one word for a POSIX shell: as it is if it is plain, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || "/._-+=:,@".unicodeScalars.contains($0)
        }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
