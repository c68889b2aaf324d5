import Foundation
import HostKit
import PluginAPI
import Testing
import TestSupport

/// What a plugin holds of its host, the resolver its registrar lends and the one its start hook gets,
/// has no member that changes the host's services: the compiler refuses every such call, in a plugin
/// source typechecked against the PluginAPI of this build, SPIs imported too.
@Suite struct PluginDoorTests {
    /// Each call would change a host's services if a plugin could make it on what it is lent.
    static let doors = [
        "try services.addService(key: key, service: 1)",
        "try services.addService(key: key, provider: ServiceProvider(1))",
        "try services.addLazyService(key: key) { 1 }",
        "try services.addService(key: key, mode: .weak) { 1 }",
        "try services.addService(key: key, mode: .atOne) { 1 }",
        "try services.addAsyncService(key: key, mode: .lazy) { 1 }",
        "try services.addService(key: key, replace: true) { 1 }",
        "try services.removeService(key: key)",
        "_ = services.existingService(forKey: \"k\")",
        "try services.addModule(Other())",
        "try services.addModule(Other(), replace: true)",
        "services.setReadOnly(denyClone: true)",
        "_ = try services.clone()",
        "services.withdraw([\"k\"])",
        "_ = services.reading()",
        "_ = services.source",
        "_ = services.grant",
        "_ = services.grants(\"k\")",
        "_ = registrar.locator",
        "let _: any ServiceRegistry = services",
    ]

    /// What a plugin may do with the same values, so that the refusals above are the compiler's
    /// verdict on the doors and not on a broken set-up.
    static let gets = [
        "_ = services.getService(key: key)",
        "_ = try services.tryService(key: key)",
        "_ = try services.tryServiceProvider(key: key)",
        "_ = services.slotInfo(forKey: \"k\")",
        "_ = services.slots",
        "try registrar.addService(key: key, service: 1)",
    ]

    static func source(_ lines: [String]) -> String {
        """
        @_spi(HostKit) import PluginAPI
        let key = ServiceLocatorEasyKey<Int>(name: "k")
        struct Other: Module { func registerServices(in registrar: ModuleRegistrar) throws {} }
        struct Probe: Module {
            func registerServices(in registrar: ModuleRegistrar) throws {
                let services = registrar.services
                try use(services, registrar)
            }
            func start(services: ServiceResolver) async throws {
                let registrar: ModuleRegistrar? = nil
                try use(services, registrar!)
            }
            func use(_ services: ServiceResolver, _ registrar: ModuleRegistrar) throws {
        \(lines.map { "        \($0)" }.joined(separator: "\n"))
            }
        }
        // The start hook a host calls takes a resolver, not a locator.
        let hook: (any Module, ServiceResolver) async throws -> Void = { try await $0.start(services: $1) }

        """
    }

    /// Typechecks a plugin source with `lines`; returns the compiler's status and its errors by line.
    static func typecheck(_ lines: [String], in folder: TemporaryFolder) async throws
        -> (status: Int32, errors: [Int: String], output: String) {
        let file = folder.file("Probe.swift")
        try source(lines).write(toFile: file, atomically: true, encoding: .utf8)
        let modules = BuiltPlugins.directory + "/Modules"
        let folderURL = URL(fileURLWithPath: folder.path)
        let (status, output) = try await runBuild("/usr/bin/env", ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules, file],
                                                  in: folderURL, log: folderURL)
        var errors: [Int: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix(file + ":") && line.contains(": error: ") {
            let rest = line.dropFirst(file.count + 1)
            guard let number = rest.split(separator: ":").first.flatMap({ Int($0) }) else { continue }
            errors[number, default: ""] += String(rest)
        }
        return (status, errors, output)
    }

    /// The door lines start two lines below `func use(` in the source.
    static var firstDoorLine: Int {
        let lines = source([]).split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.firstIndex { $0.contains("func use(") } ?? 0) + 2
    }

    @Test func aPluginCanGetServicesThroughWhatItIsLent() async throws {
        let folder = try TemporaryFolder()
        let result = try await Self.typecheck(Self.gets, in: folder)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func noCallThatChangesTheHostsServicesCompilesInAPlugin() async throws {
        let folder = try TemporaryFolder()
        let result = try await Self.typecheck(Self.doors, in: folder)
        #expect(result.status != 0)
        // Refused because the member does not exist or cannot be reached, not for a typo of this test.
        let reasons = ["has no member", "is inaccessible", "does not conform", "cannot find"]
        for (offset, door) in Self.doors.enumerated() {
            let error = result.errors[Self.firstDoorLine + offset] ?? ""
            #expect(reasons.contains { error.contains($0) }, "a plugin can compile `\(door)` (\(error)):\n\(result.output)")
        }
    }

    /// A `ServiceLocator` is a `ServiceResolver`: a host that lent its locator would hand a plugin every
    /// mutating call through a cast, which compiles. What a real plugin is lent, at registration and
    /// at start, is a resolver only.
    @Test func noCastTurnsWhatAPluginIsLentIntoALocator() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("FixtureDowncast"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let locator = host.locator
        #expect(try locator.tryService(key: ServiceLocatorEasyKey<String>(name: "fixture.downcast.registrar")) == "a resolver")
        #expect(try locator.tryService(key: ServiceLocatorEasyKey<String>(name: "fixture.downcast.start")) == "a resolver")
        #expect(locator.slotInfo(forKey: "fixture.downcast.stolen") == nil)
    }
}
