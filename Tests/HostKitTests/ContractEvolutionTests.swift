import Foundation
import HostKit
import PluginAPI
import SampleContracts
import TestSupport
import Testing

/// A plugin built apart from the host, against another release of a contract library or of PluginAPI
/// (both built for library evolution), as its author would build it: in a package of its own, with
/// `swift build`. Against an older release it loads and works; against a newer minor or another major
/// release it is refused with both versions named, and against a newer release whose additions it uses
/// with the missing declaration named: never a crash.
@Suite(.serialized) struct ContractEvolutionTests {
    /// The release of SampleContracts a plugin is built against.
    enum Release {
        /// 1.0.0: today's sources without their `since 1.1 { ... }` blocks.
        case older
        /// 1.2.0: today's sources plus one function that today's library lacks.
        case newer
        /// Today's sources, with their version set to `major.minor.0`.
        case version(UInt16, UInt16)

        /// The release's major and minor version.
        var version: (UInt16, UInt16) {
            switch self {
            case .older: (1, 0)
            case .newer: (1, 2)
            case let .version(major, minor): (major, minor)
            }
        }
    }

    /// A folder with a copy of SampleContracts as `release` has it, a plugin package against it and,
    /// if `pluginAPI` is set, a copy of PluginAPI with that version (else the repository's PluginAPI).
    func workspace(_ release: Release, pluginAPI: (UInt16, UInt16)? = nil, plugin source: String) throws -> URL {
        let files = FileManager.default
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("evolution-\(UUID().uuidString)")
        let contracts = work.appendingPathComponent("SampleContracts")
        let plugin = work.appendingPathComponent("Plugin/Sources/CompatPlugin")
        try files.createDirectory(at: plugin, withIntermediateDirectories: true)
        var pluginAPIPath = repositoryRoot.appendingPathComponent("Sources/PluginAPI").path
        if let (major, minor) = pluginAPI {
            pluginAPIPath = work.appendingPathComponent("PluginAPI").path
            try copySwiftPackage(from: repositoryRoot.appendingPathComponent("Sources/PluginAPI"), to: URL(fileURLWithPath: pluginAPIPath)) {
                try Self.settingVersion(of: "PluginAPI", to: (major, minor), in: $0)
            }
        }
        try copySwiftPackage(from: repositoryRoot.appendingPathComponent("Sources/SamplePlugins/SampleContracts"), to: contracts) { text in
            var text = try Self.settingVersion(of: "SampleContracts", to: release.version, in: text)
            try #require(!text.contains("// swift-tools-version") || text.contains(#"path: "../../PluginAPI""#))
            text = text.replacingOccurrences(of: #"path: "../../PluginAPI""#, with: "path: \"\(pluginAPIPath)\"")
            switch release {
            case .older: return withoutAdditions(text)
            case .newer where text.contains("public protocol Clock"):
                return text + "\n/// Only in the newer release.\npublic func compatNewerGreeting() -> String { \"newer\" }\n"
            case .newer, .version: return text
            }
        }
        try """
        // swift-tools-version:6.0
        import PackageDescription
        let package = Package(
            name: "Plugin",
            products: [.library(name: "CompatPlugin", type: .dynamic, targets: ["CompatPlugin"])],
            dependencies: [.package(path: "\(pluginAPIPath)"), .package(path: "../SampleContracts")],
            targets: [.target(name: "CompatPlugin", dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"),
                .product(name: "SampleContracts", package: "SampleContracts"),
            ], swiftSettings: [.swiftLanguageMode(.v6)])]
        )
        """.write(to: work.appendingPathComponent("Plugin/Package.swift"), atomically: true, encoding: .utf8)
        try source.write(to: plugin.appendingPathComponent("CompatPlugin.swift"), atomically: true, encoding: .utf8)
        return work
    }

    /// Copies the package folder `source` (its manifest, its sources and their subfolders, such as a
    /// C target's, not its build or hidden files) to `destination`, each `.swift` file through `edit`.
    private func copySwiftPackage(from source: URL, to destination: URL, edit: (String) throws -> String) throws {
        let files = FileManager.default
        try files.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: source.path) where !name.hasPrefix(".") {
            let from = source.appendingPathComponent(name), to = destination.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: from.path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                try copySwiftPackage(from: from, to: to, edit: edit)
            } else if name.hasSuffix(".swift") {
                let text = try String(contentsOf: from, encoding: .utf8)
                try edit(text).write(to: to, atomically: true, encoding: .utf8)
            } else {
                try files.copyItem(at: from, to: to)
            }
        }
    }

    /// `text` with the library's `LibraryVersion("library", M, m, p)` declaration set to `major.minor.0`.
    private static func settingVersion(of library: String, to version: (UInt16, UInt16), in text: String) throws -> String {
        let declaration = try Regex(#"LibraryVersion\(""# + library + #"", [0-9]+, [0-9]+, [0-9]+\)"#)
        return text.replacing(declaration, with: "LibraryVersion(\"\(library)\", \(version.0), \(version.1), 0)")
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
    func build(_ work: URL) async throws -> String {
        let package = work.appendingPathComponent("Plugin")
        let build = try await runBuild("/usr/bin/env", ["swift", "build"], in: package, log: work, timeout: BuildSlot.packageBuildTimeout)
        try #require(build.status == 0, "swift build failed (\(build.status)):\n\(build.output)")
        return package.appendingPathComponent(".build/debug/libCompatPlugin.so").path
    }

    private static let clockKey = ServiceLocatorEasyKey<any Clock>(name: "compat.clock")
    private static let greetingKey = ServiceLocatorParamsEasyKey<Greeting, String>(name: "compat.greeting")

    /// Built against 1.0: a `Clock` without `zone()`, a `Greeting` without `language`.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aPluginBuiltAgainstAnOlderReleaseLoadsAndWorks() async throws {
        let work = try workspace(.older, plugin: """
            import PluginAPI
            import SampleContracts

            struct FixedClock: Clock {
                func now() -> Double { 1_000 }
                func hour() -> Int { 7 }
            }

            struct CompatPlugin: Plugin {
                static let clock = ServiceLocatorEasyKey<any Clock>(name: "compat.clock")
                static let greeting = ServiceLocatorParamsEasyKey<Greeting, String>(name: "compat.greeting")
                static let metadata = PluginMetadata(name: "compat-older", version: "1.0.0", provides: [clock, greeting])
                static let contractLibraries: [LibraryVersion] = [.sampleContracts]
                func registerServices(in registrar: ModuleRegistrar) throws {
                    try registrar.addService(key: Self.clock, service: FixedClock())
                    try registrar.addService(key: Self.greeting) {
                        Greeting(recipient: $0, text: "Hello, \\($0)")
                    }
                }
            }

            @c(swift_plugin_entry)
            public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(CompatPlugin.self) }
            """)
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try await build(work)
        let contracts = try String(contentsOf: work.appendingPathComponent("SampleContracts/Contracts.swift"), encoding: .utf8)
        try #require(!contracts.contains("zone") && !contracts.contains("language"), "the older copy still has the additions")
        let version = try String(contentsOf: work.appendingPathComponent("SampleContracts/Version.swift"), encoding: .utf8)
        try #require(version.contains(#"LibraryVersion("SampleContracts", 1, 0, 0)"#))

        let host = PluginHost()
        let report = host.load([.file(library)])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let recorded = try PluginHost.inspect(library).get().libraries
        #expect(recorded == [.pluginAPI, LibraryVersion("SampleContracts", 1, 0, 0)], "the plugin records the release it was built against")
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
    /// in the copy the host loaded, and the refusal names the function in Swift terms, its library and that copy.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aPluginUsingANewerDeclarationIsRefusedNamingIt() async throws {
        let work = try workspace(.newer, plugin: """
            import PluginAPI
            import SampleContracts

            struct CompatPlugin: Plugin {
                static let newer = ServiceLocatorEasyKey<String>(name: "compat.newer")
                static let metadata = PluginMetadata(name: "compat-newer", version: "1.0.0", provides: [newer])
                static let contractLibraries: [LibraryVersion] = [.sampleContracts]
                func registerServices(in registrar: ModuleRegistrar) throws {
                    try registrar.addLazyService(key: Self.newer) {
                        compatNewerGreeting()
                    }
                }
            }

            @c(swift_plugin_entry)
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
        #expect(reason.contains("a declaration of SampleContracts that the copy it was bound to, SampleContracts "
                                + "\(LibraryVersion.sampleContracts) ("), "\(reason)")
        #expect(report.loaded.isEmpty)

        // The ABI gate (`.ci/api-check`, `swift package check-abi`) sees the same break: with the newer
        // release as its baseline, today's library lacks a declaration, and the gate fails naming it.
        let gate = "\(BuiltPlugins.directory)/abi-gate"
        let newerModules = work.appendingPathComponent("Plugin/.build/debug/Modules").path
        let baseline = try await runChild(gate, ["SampleContracts", "--modules", newerModules, "--sources",
                                                 work.appendingPathComponent("SampleContracts").path,
                                                 "--baseline", "newer", "--update"], in: work, log: work)
        try #require(baseline.status == 0, "\(baseline.output)")
        let compare = try await runChild(gate, ["SampleContracts", "--modules", "\(BuiltPlugins.directory)/Modules", "--sources",
                                                repositoryRoot.appendingPathComponent("Sources/SamplePlugins/SampleContracts").path,
                                                "--baseline", "newer"], in: work, log: work)
        #expect(compare.status == 1, "\(compare.output)")
        #expect(compare.output.contains("break: Func compatNewerGreeting() has been removed"), "\(compare.output)")
    }

    /// A plugin that uses nothing new, built against copies of PluginAPI and SampleContracts that say
    /// `versions`: the host refuses it before touching its descriptor, naming each library and both
    /// versions, in process and with `--isolated` (where the `host` command has its own copy of SampleContracts).
    private func expectRefusal(pluginAPI: (UInt16, UInt16), contracts: (UInt16, UInt16), named description: String) async throws {
        let work = try workspace(.version(contracts.0, contracts.1), pluginAPI: pluginAPI, plugin: """
            import PluginAPI
            import SampleContracts

            struct CompatPlugin: Plugin {
                static let clock = ServiceLocatorEasyKey<any Clock>(name: "compat.clock")
                static let metadata = PluginMetadata(name: "compat-versions", version: "1.0.0", provides: [clock])
                static let contractLibraries: [LibraryVersion] = [.sampleContracts]
                func registerServices(in registrar: ModuleRegistrar) throws {
                    try registrar.addService(key: Self.clock, service: StoppedClock())
                }
            }

            struct StoppedClock: Clock {
                func now() -> Double { 0 }
                func hour() -> Int { 0 }
            }

            @c(swift_plugin_entry)
            public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(CompatPlugin.self) }
            """)
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try await build(work)
        let plugin = LibraryVersion("PluginAPI", pluginAPI.0, pluginAPI.1, 0)
        let sampleContracts = LibraryVersion("SampleContracts", contracts.0, contracts.1, 0)

        let report = PluginHost().load([.file(library)])
        let path = URL(fileURLWithPath: library).resolvingSymlinksInPath().path
        #expect(report.problems == [.incompatibleLibraries(path: path, mismatches: [
            .version(library: "PluginAPI", plugin: "\(plugin)", host: "\(LibraryVersion.pluginAPI)", file: BuiltPlugins.realPath("PluginAPI")),
            .version(library: "SampleContracts", plugin: "\(sampleContracts)", host: "\(LibraryVersion.sampleContracts)",
                     file: BuiltPlugins.realPath("SampleContracts")),
        ])])
        #expect(report.problems.first?.description.contains(description) == true, "\(report.problems)")

        // The `host` command links no SampleContracts: the plugin brings the copy it was built with,
        // and only PluginAPI differs. Refused alike with and without a probe child, exit 1, no crash.
        let host = "\(BuiltPlugins.directory)/host"
        for isolation in [[], ["--isolated"]] {
            let check = try await runChild(host, ["check", "--plugins", library] + isolation, in: work, log: work)
            #expect(check.status == 1, "\(isolation): \(check.output)")
            #expect(check.output.contains("built against PluginAPI \(plugin), but the copy of PluginAPI loaded for it is "
                                          + "\(LibraryVersion.pluginAPI) (\(BuiltPlugins.realPath("PluginAPI")))"),
                    "\(isolation): \(check.output)")
            #expect(check.output.contains("0 loaded, 1 problem(s)"), "\(isolation): \(check.output)")
        }
    }

    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aPluginBuiltAgainstNewerMinorsIsRefusedNamingBothVersions() async throws {
        let host = LibraryVersion.pluginAPI
        try await expectRefusal(pluginAPI: (host.major, host.minor + 1), contracts: (1, 2),
                                named: "built against SampleContracts 1.2.0, but the copy of SampleContracts loaded for it is 1.1.0 "
                                    + "(\(BuiltPlugins.realPath("SampleContracts"))): a newer minor version, it needs SampleContracts 1.2.0 or a newer 1.x")
    }

    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aPluginBuiltAgainstOtherMajorsIsRefusedNamingBothVersions() async throws {
        let host = LibraryVersion.pluginAPI
        try await expectRefusal(pluginAPI: (host.major + 1, 0), contracts: (2, 0),
                                named: "built against SampleContracts 2.0.0, but the copy of SampleContracts loaded for it is 1.1.0 "
                                    + "(\(BuiltPlugins.realPath("SampleContracts"))): another major version, rebuild it against SampleContracts 1.1.0")
    }
}
