import Foundation
import TestSupport
import Testing

/// A plugin built in another package, which depends on this repository, loads into the host built
/// here: the plugin must link the host's `libPluginAPI.so` (not a copy of its own), or the host
/// could not use the plugin's module or cast its service.
@Suite struct OutOfTreePluginTests {
    @Test(.timeLimit(.minutes(10)))
    func templatePluginBuiltElsewhereLoadsIntoHost() async throws {
        let files = FileManager.default
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("out-of-tree-\(UUID().uuidString)")
        let package = work.appendingPathComponent("PluginTemplate")
        try files.createDirectory(at: package, withIntermediateDirectories: true)
        defer { try? files.removeItem(at: work) }

        // Only the sources and the manifest: a `.build` left in the template must not come along.
        let template = repositoryRoot.appendingPathComponent("Templates/PluginTemplate")
        try files.copyItem(at: template.appendingPathComponent("Sources"), to: package.appendingPathComponent("Sources"))
        let manifest = try String(contentsOf: template.appendingPathComponent("Package.swift"), encoding: .utf8)
        let relative = #"path: "../..""#
        try #require(manifest.contains(relative), "the template's manifest no longer has \(relative)")
        try manifest.replacingOccurrences(of: relative, with: "path: \"\(repositoryRoot.path)\"")
            .write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)

        let build = try await runChild("/usr/bin/env", ["swift", "build"], in: package, log: work, timeout: .seconds(8 * 60))
        try #require(build.status == 0, "swift build of the template failed (\(build.status)):\n\(build.output)")
        let plugin = package.appendingPathComponent(".build/debug/libMotdPlugin.so").path
        try #require(files.fileExists(atPath: plugin), "no \(plugin) after:\n\(build.output)")

        let host = try hostExecutable()
        let inspect = try await runChild(host, ["inspect", plugin], in: work, log: work)
        #expect(inspect.status == 0, "\(inspect.output)")
        #expect(inspect.output.contains("name:     motd"), "\(inspect.output)")
        #expect(inspect.output.contains("provides: template.motd"), "\(inspect.output)")

        let resolve = try await runChild(host, ["resolve", "template.motd", "--plugins", plugin], in: work, log: work)
        #expect(resolve.status == 0, "\(resolve.output)")
        #expect(resolve.output.contains("'template.motd': Swift.String [lazy] from motd"), "\(resolve.output)")
        #expect(resolve.output.contains("Message of the day for process "), "\(resolve.output)")
    }

    /// The `host` executable `swift test` built beside this test bundle.
    private func hostExecutable() throws -> String {
        let host = "\(BuiltPlugins.directory)/host"
        try #require(FileManager.default.isExecutableFile(atPath: host), "no host executable in \(BuiltPlugins.directory)")
        return host
    }
}
