import Foundation

/// A baseline kept in the library's repository: `<folder>/<Module>.abi.json` (the ABI) beside
/// `<folder>/<Module>.version` (MAJOR.MINOR.PATCH), written at each release with `--update`.
struct CommittedBaseline {
    /// The library's module name.
    let module: String
    /// The folder that holds the two files (`api` by default).
    let folder: URL

    var dumpFile: URL { folder.appendingPathComponent("\(module).abi.json") }
    var versionFile: URL { folder.appendingPathComponent("\(module).version") }

    /// Whether a whole baseline is there (both files): `--update` judges a release against it first.
    /// Half of one is no baseline, and `--update` writes it whole.
    var exists: Bool {
        FileManager.default.fileExists(atPath: dumpFile.path) && FileManager.default.fileExists(atPath: versionFile.path)
    }

    /// The baseline, or `GateError.noBaseline` if either file is missing.
    func read() throws -> Baseline {
        let files = FileManager.default
        guard files.fileExists(atPath: dumpFile.path), files.fileExists(atPath: versionFile.path) else {
            throw GateError.noBaseline(module: module, looked: "\(dumpFile.relativePath) and \(versionFile.relativePath)")
        }
        let text = try String(contentsOf: versionFile, encoding: .utf8)
        guard let version = SemanticVersion(text) else {
            throw GateError.badVersionFile(path: versionFile.relativePath, text: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return Baseline(dump: dumpFile, version: version, origin: dumpFile.relativePath,
                        atRelease: "at the release, write the baseline anew (--update) and commit it")
    }

    /// Writes the library as it is built now, and its version, as the baseline of a release.
    func write(digester: APIDigester, version: SemanticVersion) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try digester.dump(to: dumpFile)
        try "\(version)\n".write(to: versionFile, atomically: true, encoding: .utf8)
    }
}
