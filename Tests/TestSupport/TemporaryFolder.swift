import Foundation

/// A temporary folder (mode 0755, owned by us) removed when the value goes away.
public final class TemporaryFolder: Sendable {
    public let path: String

    public init() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("hostkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        path = base.path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The full path of `name` in the folder.
    public func file(_ name: String) -> String {
        "\(path)/\(name)"
    }

    /// Writes `bytes` to `name` with `mode`; returns the full path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8], mode: Int = 0o644) throws -> String {
        let file = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        return file
    }

    /// Copies a built plugin into the folder under `name`.
    @discardableResult
    public func copy(_ product: String, as name: String, mode: Int = 0o755) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path(product)))
        return try write(name, Array(bytes), mode: mode)
    }

    /// Installs a built plugin as `name` the way a new version is deployed: written to a file of its
    /// own, then renamed over `name` (`install`, `mv`). Returns the full path.
    @discardableResult
    public func install(_ product: String, as name: String) throws -> String {
        let staged = try copy(product, as: ".\(name).\(UUID().uuidString)")
        let file = file(name)
        guard rename(staged, file) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return file
    }
}
