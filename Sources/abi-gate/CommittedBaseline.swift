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

    /// Whether a baseline is there: `--update` judges a release against it first, and writes a
    /// first one only where there is none.
    var exists: Bool {
        get throws {
            let files = [dumpFile, versionFile].map { FileManager.default.fileExists(atPath: $0.path) }
            guard files[0] == files[1] else {
                // Half a baseline is no first release: the release it is left of may be newer than
                // the library, and writing over it would let the version go down.
                let (there, missing) = files[0] ? (dumpFile, versionFile) : (versionFile, dumpFile)
                throw GateError.halfBaseline(module: module, there: there.relativePath, missing: missing.relativePath)
            }
            return files[0]
        }
    }

    /// The baseline; `GateError.noBaseline` if neither file is there, `halfBaseline` if one is.
    func read() throws -> Baseline {
        guard try exists else {
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
