import Foundation

/// This package's manifest as `swift package dump-package` reads it (its JSON object), and SwiftPM's
/// output (what went wrong, if the object is nil). SwiftPM works in a scratch folder in `work`: the
/// running `swift test` holds the lock of `.build`.
public func rootManifest(scratchIn work: TemporaryFolder) async throws -> (manifest: [String: Any]?, output: String) {
    let folder = URL(fileURLWithPath: work.path)
    let dump = try await runBuild("/usr/bin/env", ["swift", "package", "--package-path", repositoryRoot.path,
                                                  "--scratch-path", work.file("scratch"), "dump-package"],
                                  in: folder, log: folder, timeout: BuildSlot.packageBuildTimeout)
    let json = String(dump.output.drop { $0 != "{" })
    let manifest = dump.status == 0 ? (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] : nil
    return (manifest, dump.output)
}
