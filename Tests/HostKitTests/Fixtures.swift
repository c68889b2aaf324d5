import Foundation
import HostKit
import PluginAPI

/// The plugin libraries `swift build` / `swift test` put beside the test bundle.
enum BuiltPlugins {
    /// The build folder: the test bundle runs from `.build/<triple>/<config>/`.
    static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    static func path(_ product: String) -> String {
        "\(directory)/lib\(product).so"
    }

    /// Every sample plugin, as the `host` loads them by default.
    static let samples = ["ClockPlugin", "GreeterPlugin", "NotesPlugin", "AccountPlugin"]
}

/// A temporary folder (mode 0755, owned by us) removed when the value goes away.
final class TemporaryFolder {
    let path: String

    init() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("hostkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        path = base.path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `bytes` to `name` with `mode`; returns the full path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8], mode: Int = 0o644) throws -> String {
        let file = "\(path)/\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        return file
    }

    /// Copies a built plugin into the folder under `name`.
    @discardableResult
    func copy(_ product: String, as name: String, mode: Int = 0o755) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path(product)))
        return try write(name, Array(bytes), mode: mode)
    }
}

/// A shared library of the system that is certainly not a plugin.
let systemLibrary: String? = ["/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                              "/lib/aarch64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6"]
    .first { FileManager.default.fileExists(atPath: $0) }

extension LoadReport {
    /// The error for the file or plugin whose subject ends with `suffix`.
    func error(for suffix: String) -> PluginLoadError? {
        problems.first { $0.subject.hasSuffix(suffix) }
    }

    var loadedNames: [String] {
        loaded.compactMap { $0.metadata?.name }
    }
}
