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
        guard exists else {
            throw GateError.noBaseline(module: module, looked: "\(dumpFile.relativePath) and \(versionFile.relativePath)")
        }
        let text = try String(contentsOf: versionFile, encoding: .utf8)
        guard let version = SemanticVersion(text) else {
            throw GateError.badVersionFile(path: versionFile.relativePath, text: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return Baseline(dump: dumpFile, version: version, origin: dumpFile.relativePath,
                        atRelease: "at the release, write the baseline anew (--update) and commit it")
    }

    /// Writes the library as it is built now, and its version, as the baseline of a release. The
    /// dump goes to a file of its own first and replaces the baseline's only once it is whole: a
    /// failed dump leaves the last release's baseline as it was.
    func write(digester: APIDigester, version: SemanticVersion) throws {
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        let fresh = folder.appendingPathComponent(".\(module).abi.json.\(UUID().uuidString)")
        defer { try? files.removeItem(at: fresh) }
        try digester.dump(to: fresh)
        // rename(2) replaces the file whole, whether or not there was one.
        guard rename(fresh.path, dumpFile.path) == 0 else {
            throw GateError.toolFailed(what: "writing \(dumpFile.relativePath)", output: String(cString: strerror(errno)))
        }
        try "\(version)\n".write(to: versionFile, atomically: true, encoding: .utf8)
    }
}
