import Foundation
import TestSupport
import Testing

/// Plugins built in another package, which depends on this repository, load into the host built
/// here: they must link the host's `libPluginAPI.so` (not a copy of their own), or the host could not
/// use their modules; and they share a contract library of their own (`WeatherContracts`, a dynamic
/// package beside them), or one plugin could not cast the other's service.
@Suite struct OutOfTreePluginTests {
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func templatePluginsBuiltElsewhereLoadIntoHostAndShareTheirContracts() async throws {
        let files = FileManager.default
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("out-of-tree-\(UUID().uuidString)")
        let package = work.appendingPathComponent("PluginTemplate")
        try files.createDirectory(at: package.appendingPathComponent("WeatherContracts"), withIntermediateDirectories: true)
        defer { try? files.removeItem(at: work) }

        // The sources, the manifests, WeatherContracts' baseline and CI script: a `.build` or a
        // `Package.resolved` left in the template must not come along.
        let template = repositoryRoot.appendingPathComponent("Templates/PluginTemplate")
        try files.copyItem(at: template.appendingPathComponent("Sources"), to: package.appendingPathComponent("Sources"))
        for name in try files.contentsOfDirectory(atPath: template.appendingPathComponent("WeatherContracts").path)
        where !name.hasPrefix(".") && !name.hasPrefix("Package.") {
            try files.copyItem(at: template.appendingPathComponent("WeatherContracts/\(name)"),
                               to: package.appendingPathComponent("WeatherContracts/\(name)"))
        }
        try copyManifest("Package.swift", from: template, to: package, replacing: #"path: "../..""#, with: "")
        try copyManifest("WeatherContracts/Package.swift", from: template, to: package, replacing: #"path: "../../..""#, with: "")

        let build = try await runBuild("/usr/bin/env", ["swift", "build"], in: package, log: work, timeout: BuildSlot.packageBuildTimeout)
        try #require(build.status == 0, "swift build of the template failed (\(build.status)):\n\(build.output)")
        let motd = package.appendingPathComponent(".build/debug/libMotdPlugin.so").path
        let weather = package.appendingPathComponent(".build/debug/libWeatherPlugin.so").path
        try #require(files.fileExists(atPath: motd) && files.fileExists(atPath: weather), "no plugins after:\n\(build.output)")

        let host = try hostExecutable()
        let inspect = try await runChild(host, ["inspect", motd], in: work, log: work)
        #expect(inspect.status == 0, "\(inspect.output)")
        #expect(inspect.output.contains("name:     motd"), "\(inspect.output)")
        #expect(inspect.output.contains("built against: PluginAPI 5."), "\(inspect.output)")
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

    /// The natural first try of a new author: a plain (static) contracts target in the same package as
    /// two plugins. Each plugin then carries its own copy of the protocol, and the host says so at load,
    /// naming the module and what to change, instead of a riddle at the first get ("holds X, but X was
    /// requested").
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func contractsLinkedIntoTwoPluginsAreRefusedSayingWhy() async throws {
        let files = FileManager.default
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("two-copies-\(UUID().uuidString)")
        defer { try? files.removeItem(at: work) }
        let package = work.appendingPathComponent("TwoCopies")
        let sources: [String: String] = [
            "DemoContracts/DemoContracts.swift": """
                import PluginAPI
                public protocol Greeter: Sendable { func greet() -> String }
                public enum DemoKeys {
                    public static let greeter = ServiceLocatorEasyKey<any Greeter>(name: "demo.greeter")
                }
                """,
            "DemoGreeterPlugin/DemoGreeterPlugin.swift": """
                import DemoContracts
                import PluginAPI
                struct Hello: Greeter { func greet() -> String { "hello" } }
                struct GreeterPlugin: Plugin {
                    static let metadata = PluginMetadata(name: "demo-greeter", version: "1.0.0", provides: [DemoKeys.greeter])
                    func registerServices(in registrar: ModuleRegistrar) throws {
                        try registrar.addService(key: DemoKeys.greeter, service: Hello())
                    }
                }
                @c(swift_plugin_entry)
                public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(GreeterPlugin.self) }
                """,
            "DemoUserPlugin/DemoUserPlugin.swift": """
                import DemoContracts
                import PluginAPI
                struct UserPlugin: Plugin {
                    static let message = ServiceLocatorEasyKey<String>(name: "demo.message")
                    static let metadata = PluginMetadata(name: "demo-user", version: "1.0.0", provides: [message],
                                                         requires: [DemoKeys.greeter])
                    func registerServices(in registrar: ModuleRegistrar) throws {
                        let services = registrar.services
                        try registrar.addLazyService(key: Self.message) { try services.tryService(key: DemoKeys.greeter).greet() }
                    }
                }
                @c(swift_plugin_entry)
                public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(UserPlugin.self) }
                """,
        ]
        let built = try await buildPackage(package, sources: sources, products: ["DemoGreeterPlugin", "DemoUserPlugin"], targets: """
            .target(name: "DemoContracts", dependencies: [host]),
            .target(name: "DemoGreeterPlugin", dependencies: [host, "DemoContracts"]),
            .target(name: "DemoUserPlugin", dependencies: [host, "DemoContracts"]),
            """)
        let plugins = ["DemoGreeterPlugin", "DemoUserPlugin"].map { built.appendingPathComponent("lib\($0).so").path }

        let check = try await runChild(try hostExecutable(), ["check"] + plugins.flatMap { ["--plugins", $0] }, in: work, log: work)
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.contains("plugin 'demo-user': requires key 'demo.greeter' (provided by 'demo-greeter'), but the slot "
            + "holds DemoContracts.Greeter and DemoContracts.Greeter is declared: two different types of one name, so module "
            + "DemoContracts has two copies in the process"), "\(check.output)")
        #expect(check.output.contains("Make DemoContracts a dynamic library"), "\(check.output)")
        #expect(check.output.contains("1 loaded, 1 problem(s)"), "\(check.output)")
    }

    /// A plugin built elsewhere uses the sample contracts through this package's `SampleContracts`
    /// product, as the README's examples do, and gets the sample clock plugin's service.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aPluginBuiltElsewhereUsesTheSampleContracts() async throws {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sample-user-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let built = try await buildPackage(work.appendingPathComponent("SampleUser"), sources: [
            "HourPlugin/HourPlugin.swift": """
                import PluginAPI
                import SampleContracts
                struct HourPlugin: Plugin {
                    static let hour = ServiceLocatorEasyKey<String>(name: "demo.hour")
                    static let metadata = PluginMetadata(name: "demo-hour", version: "1.0.0", provides: [hour],
                                                         requires: [SampleKeys.clock])
                    static let contractLibraries: [LibraryVersion] = [.sampleContracts]
                    func registerServices(in registrar: ModuleRegistrar) throws {
                        let services = registrar.services
                        try registrar.addLazyService(key: Self.hour) { "hour \\(try services.tryService(key: SampleKeys.clock).hour())" }
                    }
                }
                @c(swift_plugin_entry)
                public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(HourPlugin.self) }
                """,
        ], products: ["HourPlugin"], targets: """
            .target(name: "HourPlugin", dependencies: [host, .product(name: "SampleContracts", package: "SwiftPluginHost")]),
            """)
        let resolve = try await runChild(try hostExecutable(), ["resolve", "demo.hour", "--plugins", built.appendingPathComponent("libHourPlugin.so").path,
                                                                "--plugins", "\(BuiltPlugins.directory)/libClockPlugin.so"], in: work, log: work)
        #expect(resolve.status == 0, "\(resolve.output)")
        #expect(resolve.output.contains("'demo.hour': Swift.String [lazy] from demo-hour"), "\(resolve.output)")
        #expect(resolve.output.contains("\nhour "), "\(resolve.output)")
    }

    /// Writes a package at `package` whose dynamic `products` (one target each) are built from
    /// `sources` (paths under `Sources/`), depending on this repository as `SwiftPluginHost` (`host`
    /// names its PluginAPI product in `targets`), builds it, and returns its build folder.
    private func buildPackage(_ package: URL, sources: [String: String], products: [String], targets: String) async throws -> URL {
        let files = FileManager.default
        for (path, text) in sources {
            let file = package.appendingPathComponent("Sources/\(path)")
            try files.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription
            let host = Target.Dependency.product(name: "PluginAPI", package: "SwiftPluginHost")
            let package = Package(
                name: "\(package.lastPathComponent)",
                products: [\(products.map { ".library(name: \"\($0)\", type: .dynamic, targets: [\"\($0)\"])" }.joined(separator: ", "))],
                dependencies: [.package(name: "SwiftPluginHost", path: "\(repositoryRoot.path)")],
                targets: [
            \(targets)
                ]
            )
            """
        try manifest.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let work = package.deletingLastPathComponent()
        let build = try await runBuild("/usr/bin/env", ["swift", "build"], in: package, log: work, timeout: BuildSlot.packageBuildTimeout)
        try #require(build.status == 0, "swift build of \(package.lastPathComponent) failed (\(build.status)):\n\(build.output)")
        return package.appendingPathComponent(".build/debug")
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
