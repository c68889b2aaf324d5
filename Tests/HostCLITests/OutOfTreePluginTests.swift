import Foundation
import TestSupport
import Testing

/// Plugins built in another package, which depends on this repository, load into the host built
/// here: they must link the host's `libPluginAPI.so` (not a copy of their own), or the host could not
/// use their modules; and they share a contract library of their own (`WeatherContracts`, a dynamic
/// package beside them), or one plugin could not cast the other's service.
@Suite struct OutOfTreePluginTests {
    @Test(.timeLimit(.minutes(10)))
    func templatePluginsBuiltElsewhereLoadIntoHostAndShareTheirContracts() async throws {
        let files = FileManager.default
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("out-of-tree-\(UUID().uuidString)")
        let package = work.appendingPathComponent("PluginTemplate")
        try files.createDirectory(at: package.appendingPathComponent("WeatherContracts"), withIntermediateDirectories: true)
        defer { try? files.removeItem(at: work) }

        // Only the sources and the manifests: a `.build` left in the template must not come along.
        let template = repositoryRoot.appendingPathComponent("Templates/PluginTemplate")
        try files.copyItem(at: template.appendingPathComponent("Sources"), to: package.appendingPathComponent("Sources"))
        for name in try files.contentsOfDirectory(atPath: template.appendingPathComponent("WeatherContracts").path)
        where name.hasSuffix(".swift") {
            try files.copyItem(at: template.appendingPathComponent("WeatherContracts/\(name)"),
                               to: package.appendingPathComponent("WeatherContracts/\(name)"))
        }
        try copyManifest("Package.swift", from: template, to: package, replacing: #"path: "../..""#, with: "")
        try copyManifest("WeatherContracts/Package.swift", from: template, to: package,
                         replacing: #"path: "../../../Sources/PluginAPI""#, with: "/Sources/PluginAPI")

        let build = try await runChild("/usr/bin/env", ["swift", "build"], in: package, log: work, timeout: .seconds(8 * 60))
        try #require(build.status == 0, "swift build of the template failed (\(build.status)):\n\(build.output)")
        let motd = package.appendingPathComponent(".build/debug/libMotdPlugin.so").path
        let weather = package.appendingPathComponent(".build/debug/libWeatherPlugin.so").path
        try #require(files.fileExists(atPath: motd) && files.fileExists(atPath: weather), "no plugins after:\n\(build.output)")

        let host = try hostExecutable()
        let inspect = try await runChild(host, ["inspect", motd], in: work, log: work)
        #expect(inspect.status == 0, "\(inspect.output)")
        #expect(inspect.output.contains("name:     motd"), "\(inspect.output)")
        #expect(inspect.output.contains("built against: PluginAPI 4."), "\(inspect.output)")
        #expect(inspect.output.contains(", WeatherContracts 1.0.0"), "\(inspect.output)")
        #expect(inspect.output.contains("provides: template.motd"), "\(inspect.output)")

        // The message of the day gets the weather plugin's service through WeatherContracts' protocol.
        let resolve = try await runChild(host, ["resolve", "template.motd", "--plugins", motd, "--plugins", weather],
                                         in: work, log: work)
        #expect(resolve.status == 0, "\(resolve.output)")
        #expect(resolve.output.contains("'template.motd': Swift.String [lazy] from motd"), "\(resolve.output)")
        #expect(resolve.output.contains("Message of the day for process "), "\(resolve.output)")
        #expect(resolve.output.contains(": sunny, 21 °C"), "\(resolve.output)")
    }

    /// Copies the manifest `name` of `template` to `package`, its dependency `path` (relative in the
    /// template) made this repository's root plus `suffix`.
    private func copyManifest(_ name: String, from template: URL, to package: URL, replacing path: String,
                              with suffix: String) throws {
        let manifest = try String(contentsOf: template.appendingPathComponent(name), encoding: .utf8)
        try #require(manifest.contains(path), "the template's \(name) no longer has \(path)")
        try manifest.replacingOccurrences(of: path, with: "path: \"\(repositoryRoot.path)\(suffix)\"")
            .write(to: package.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    /// The `host` executable `swift test` built beside this test bundle.
    private func hostExecutable() throws -> String {
        let host = "\(BuiltPlugins.directory)/host"
        try #require(FileManager.default.isExecutableFile(atPath: host), "no host executable in \(BuiltPlugins.directory)")
        return host
    }
}
