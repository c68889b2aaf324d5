import Foundation
import PackagePlugin

/// Builds the fixture route plugins, the package `Tests/PluginFixtures`, into a folder of this plugin's
/// in the build folder before the tests are compiled, and again whenever a file of theirs, of
/// the contract libraries, of PluginAPI or of PluginActors, or the compiler, changes; then writes `BuiltFixturesFolder.swift`,
/// which tells the tests where they are. Apart from the example's products, so that the folder the
/// README has the server load (`.build/release`, `.build/debug`) never holds them. Built without the
/// sanitizers of a sanitizer run: they are the tests' inputs, not the code under test.
@main struct BuildFixtures: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let example = context.package.directoryURL
        let scratch = context.pluginWorkDirectoryURL.appending(path: "fixtures")
        let generated = context.pluginWorkDirectoryURL.appending(path: "BuiltFixturesFolder.swift")
        let swift = try context.tool(named: "swift").url
        let folder = scratch.appending(path: "debug").path
        let source = "/// The folder the build tool plugin BuildFixtures built the fixture route plugins into.\n"
            + "let builtFixturesFolder = \"\(folder.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"\n"
        // The build's own output goes to standard error: SwiftPM shows it if the build fails.
        let script = #""$1" build --package-path "$2" --scratch-path "$3" >&2 && printf '%s' "$4" > "$5""#
        let watched = ["Tests/PluginFixtures", "RouteContracts", "DistributedRouteContracts", "../../Sources/PluginAPI",
                       "../../Sources/PluginActors"]
        // A build tool's command starts with an almost empty environment: the compiler needs a PATH (the
        // linker), SwiftPM a HOME (its caches).
        let environment = ProcessInfo.processInfo.environment
        return [.buildCommand(
            displayName: "Building the fixture route plugins (Tests/PluginFixtures)",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "build-fixtures", swift.path,
                        example.appending(path: "Tests/PluginFixtures").path, scratch.path, source, generated.path],
            environment: [
                "PATH": swift.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin"),
                "HOME": environment["HOME"] ?? NSTemporaryDirectory(),
            ],
            // The compiler among the inputs: fixtures another toolchain built would be refused as such.
            inputFiles: watched.flatMap { sourceFiles(under: example.appending(path: $0).standardizedFileURL) } + [swift],
            outputFiles: [generated]
        )]
    }

    /// The regular files under `folder`, build folders and hidden files left out.
    private func sourceFiles(under folder: URL) -> [URL] {
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey],
                                                  options: [.skipsHiddenFiles])
        var found: [URL] = []
        while let file = walk?.nextObject() as? URL {
            if file.lastPathComponent.hasPrefix(".build") {
                walk?.skipDescendants()
            } else if (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                found.append(file)
            }
        }
        return found
    }
}
