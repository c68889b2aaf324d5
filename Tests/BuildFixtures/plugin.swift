import Foundation
import PackagePlugin

/// Builds the fixture plugins, the package `Tests/PluginFixtures`, into `.build-fixtures/` beside the
/// package's build folders, before the target it is applied to
/// (TestSupport) is compiled, and again whenever a file of theirs, of PluginAPI, PluginActors or SampleContracts,
/// or the compiler, changes; then writes `BuiltFixturesFolder.swift`, which tells that target where
/// they are.
///
/// The fixtures are a package of their own so that no package depending on this one sees them as
/// products, and so that they are not built beside the sample plugins. They are built without the
/// sanitizers of a sanitizer run: the fixtures are the tests' inputs, not the code under test, and
/// the process that loads one brings its own PluginAPI (the fixtures use that copy).
@main struct BuildFixtures: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let fixtures = root.appending(path: "Tests/PluginFixtures")
        // One folder for every build folder (`--scratch-path`): the plain build and each sanitizer's
        // load the same fixtures, built once (a second build finds them done; SwiftPM's lock on the
        // folder makes two at once wait for each other).
        let scratch = root.appending(path: ".build-fixtures")
        let generated = context.pluginWorkDirectoryURL.appending(path: "BuiltFixturesFolder.swift")
        let swift = try context.tool(named: "swift").url
        let source = """
            /// The folder the build tool plugin BuildFixtures built the fixture plugins into.
            let builtFixturesFolder = \(literal(scratch.appending(path: "debug").path))

            """
        // The build's own output goes to standard error: SwiftPM shows it if the build fails.
        let script = #""$1" build --package-path "$2" --scratch-path "$3" >&2 && printf '%s' "$4" > "$5""#
        // The compiler among the inputs: fixtures another toolchain built would be refused as such.
        let inputs = ["Tests/PluginFixtures", "Sources/PluginAPI", "Sources/PluginActors", "Sources/SamplePlugins/SampleContracts"]
            .flatMap { files(in: root.appending(path: $0)) } + [swift]
        // A build tool's command starts with an almost empty environment; the compiler needs a PATH
        // (to find the linker) and SwiftPM a HOME (for its caches).
        let environment = ProcessInfo.processInfo.environment
        return [.buildCommand(
            displayName: "Building the fixture plugins (Tests/PluginFixtures)",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "build-fixtures", swift.path, fixtures.path, scratch.path, source, generated.path],
            environment: [
                "PATH": swift.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin"),
                "HOME": environment["HOME"] ?? NSTemporaryDirectory(),
            ],
            inputFiles: inputs,
            outputFiles: [generated]
        )]
    }

    /// Every file under `folder`, except build folders and hidden ones.
    private func files(in folder: URL) -> [URL] {
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey],
                                                        options: [.skipsHiddenFiles]) else { return [] }
        var found: [URL] = []
        for case let file as URL in walk {
            if file.lastPathComponent.hasPrefix(".build") {
                walk.skipDescendants()
            } else if (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                found.append(file)
            }
        }
        return found
    }

    /// `text` as a Swift string literal.
    private func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
