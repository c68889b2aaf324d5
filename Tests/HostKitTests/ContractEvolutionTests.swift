import Foundation
import HostKit
import PluginAPI
import SampleContracts
import TestSupport
import Testing

/// A plugin built apart from the host, against another release of a contract library (built for
/// library evolution), as its author would build it: in a package of its own, with `swift build`.
/// Against an older release it loads and works; against a newer one whose additions it uses it is
/// refused with the missing declaration named, never a crash.
@Suite(.serialized) struct ContractEvolutionTests {
    /// The release of SampleContracts a plugin is built against.
    enum Release {
        /// Today's sources without their `since 1.1 { ... }` blocks.
        case older
        /// Today's sources plus one function that today's library lacks.
        case newer
    }

    /// A folder with a copy of SampleContracts as `release` has it and a plugin package against it.
    private func workspace(_ release: Release, plugin source: String) throws -> URL {
        let files = FileManager.default
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("evolution-\(UUID().uuidString)")
        let contracts = work.appendingPathComponent("SampleContracts")
        let plugin = work.appendingPathComponent("Plugin/Sources/CompatPlugin")
        try files.createDirectory(at: contracts, withIntermediateDirectories: true)
        try files.createDirectory(at: plugin, withIntermediateDirectories: true)
        let original = repositoryRoot.appendingPathComponent("Sources/SamplePlugins/SampleContracts")
        let pluginAPI = repositoryRoot.appendingPathComponent("Sources/PluginAPI").path

        let manifest = try String(contentsOf: original.appendingPathComponent("Package.swift"), encoding: .utf8)
        try #require(manifest.contains(#"path: "../../PluginAPI""#))
        try manifest.replacingOccurrences(of: #"path: "../../PluginAPI""#, with: "path: \"\(pluginAPI)\"")
            .write(to: contracts.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for name in try files.contentsOfDirectory(atPath: original.path) where name.hasSuffix(".swift") && name != "Package.swift" {
            var text = try String(contentsOf: original.appendingPathComponent(name), encoding: .utf8)
            switch release {
            case .older: text = withoutAdditions(text)
            case .newer: text += "\n/// Only in the newer release.\npublic func compatNewerGreeting() -> String { \"newer\" }\n"
            }
            try text.write(to: contracts.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try """
        // swift-tools-version:6.0
        import PackageDescription
        let package = Package(
            name: "Plugin",
            products: [.library(name: "CompatPlugin", type: .dynamic, targets: ["CompatPlugin"])],
            dependencies: [.package(path: "\(pluginAPI)"), .package(path: "../SampleContracts")],
            targets: [.target(name: "CompatPlugin", dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"),
                .product(name: "SampleContracts", package: "SampleContracts"),
            ], swiftSettings: [.swiftLanguageMode(.v6)])]
        )
        """.write(to: work.appendingPathComponent("Plugin/Package.swift"), atomically: true, encoding: .utf8)
        try source.write(to: plugin.appendingPathComponent("CompatPlugin.swift"), atomically: true, encoding: .utf8)
        return work
    }

    /// `text` without its `// since 1.1 {` ... `// }` blocks: the release before they were added.
    private func withoutAdditions(_ text: String) -> String {
        var kept: [Substring] = []
        var skipping = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// since 1.1 {" { skipping = true; continue }
            if skipping, trimmed == "// }" { skipping = false; continue }
            if !skipping { kept.append(line) }
        }
        return kept.joined(separator: "\n")
    }

    /// Builds the plugin package of `work`; returns the library's path.
    private func build(_ work: URL) async throws -> String {
        let package = work.appendingPathComponent("Plugin")
        let build = try await runChild("/usr/bin/env", ["swift", "build"], in: package, log: work, timeout: .seconds(8 * 60))
        try #require(build.status == 0, "swift build failed (\(build.status)):\n\(build.output)")
        return package.appendingPathComponent(".build/debug/libCompatPlugin.so").path
    }

    private static let clockKey = ServiceLocatorEasyKey<any Clock>(name: "compat.clock")
    private static let greetingKey = ServiceLocatorParamsEasyKey<Greeting, String>(name: "compat.greeting")

    /// Built against 1.0: a `Clock` without `zone()`, a `Greeting` without `language`.
    @Test(.timeLimit(.minutes(10)))
    func aPluginBuiltAgainstAnOlderReleaseLoadsAndWorks() async throws {
        let work = try workspace(.older, plugin: """
            import PluginAPI
            import SampleContracts

            struct FixedClock: Clock {
                func now() -> Double { 1_000 }
                func hour() -> Int { 7 }
            }

            struct CompatPlugin: Plugin {
                static let metadata = PluginMetadata(name: "compat-older", version: "1.0.0",
                                                     provides: ["compat.clock", "compat.greeting"])
                func registerServices(in registrar: ModuleRegistrar) throws {
                    try registrar.addService(key: ServiceLocatorEasyKey<any Clock>(name: "compat.clock"), service: FixedClock())
                    try registrar.addService(key: ServiceLocatorParamsEasyKey<Greeting, String>(name: "compat.greeting")) {
                        Greeting(recipient: $0, text: "Hello, \\($0)")
                    }
                }
            }

            @_cdecl("swift_plugin_entry")
            public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(CompatPlugin.self) }
            """)
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try await build(work)
        let contracts = try String(contentsOf: work.appendingPathComponent("SampleContracts/Contracts.swift"), encoding: .utf8)
        try #require(!contracts.contains("zone") && !contracts.contains("language"), "the older copy still has the additions")

        let host = PluginHost()
        let report = host.load([.file(library)])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let clock = try host.locator.tryService(key: Self.clockKey)
        #expect(clock.now() == 1_000)
        #expect(clock.hour() == 7)
        #expect(clock.zone() == "UTC", "the requirement added in 1.1 answers with its default")
        let greeting = try host.locator.tryService(key: Self.greetingKey, params: "Ada")
        #expect(greeting == Greeting(recipient: "Ada", text: "Hello, Ada"))
        #expect(greeting.language == "en", "the field added in 1.1 has its default")
        _ = host.shutdown()
    }

    /// Built against a newer release whose new function it calls: `dlopen` finds the symbol missing
    /// in the host's copy, and the refusal names the function in Swift terms.
    @Test(.timeLimit(.minutes(10)))
    func aPluginUsingANewerDeclarationIsRefusedNamingIt() async throws {
        let work = try workspace(.newer, plugin: """
            import PluginAPI
            import SampleContracts

            struct CompatPlugin: Plugin {
                static let metadata = PluginMetadata(name: "compat-newer", version: "1.0.0", provides: ["compat.newer"])
                func registerServices(in registrar: ModuleRegistrar) throws {
                    try registrar.addLazyService(key: ServiceLocatorEasyKey<String>(name: "compat.newer")) {
                        compatNewerGreeting()
                    }
                }
            }

            @_cdecl("swift_plugin_entry")
            public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(CompatPlugin.self) }
            """)
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try await build(work)

        let report = PluginHost().load([.file(library)])
        guard case let .notASharedLibrary(path, reason)? = report.problems.first else {
            Issue.record("expected a refusal, got \(report.problems)")
            return
        }
        #expect(path == URL(fileURLWithPath: library).resolvingSymlinksInPath().path)
        #expect(reason.contains("SampleContracts.compatNewerGreeting() -> Swift.String"), "\(reason)")
        #expect(reason.contains("built against a newer version"), "\(reason)")
        #expect(report.loaded.isEmpty)

        // CI's ABI check sees the same break: against the newer release as its baseline, today's
        // library lacks a declaration, and the check fails naming it.
        let check = repositoryRoot.appendingPathComponent(".ci/api-check").path
        let newer = work.appendingPathComponent("newer.abi.json").path
        let newerModules = work.appendingPathComponent("Plugin/.build/debug/Modules").path
        let dump = try await runChild(check, ["--dump", "SampleContracts", newerModules, newer], in: work, log: work)
        try #require(dump.status == 0, "\(dump.output)")
        let compare = try await runChild(check, ["--compare", newer, "SampleContracts", "\(BuiltPlugins.directory)/Modules"],
                                         in: work, log: work)
        #expect(compare.status == 1, "\(compare.output)")
        #expect(compare.output.contains("compatNewerGreeting() has been removed"), "\(compare.output)")
    }
}
