// swift-tools-version:6.0
// The plugin host in a Swift server: swift-log, swift-service-lifecycle, swift-crypto, swift-metrics, swift-configuration and
// swift-distributed-tracing, in a package of their own
// so that the root Package.swift stays free of third-party packages. It depends on the root package
// by path, as Benchmarks/ does. Test: swift test (in this folder).
import PackageDescription

/// SwiftPM names a package depended on by path after its folder: the root package's identity is
/// whatever the clone's folder is called, so it is computed here.
let rootIdentity: String = {
    let integrations = Context.packageDirectory.split(separator: "/")
    return String(integrations.dropLast().last ?? "main").lowercased()
}()

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
let hostKit = Target.Dependency.product(name: "HostKit", package: rootIdentity)
let pluginAPI = Target.Dependency.product(name: "PluginAPI", package: rootIdentity)
let processSignals = Target.Dependency.product(name: "ProcessSignals", package: rootIdentity)
let pluginActors = Target.Dependency.product(name: "PluginActors", package: rootIdentity)

let package = Package(
    name: "PluginHostIntegrations",
    products: [
        .library(name: "PluginHostLogging", targets: ["PluginHostLogging"]),
        .library(name: "PluginHostLifecycle", targets: ["PluginHostLifecycle"]),
        .library(name: "PluginHostDigests", targets: ["PluginHostDigests"]),
        .library(name: "PluginHostMetrics", targets: ["PluginHostMetrics"]),
        .library(name: "PluginHostConfiguration", targets: ["PluginHostConfiguration"]),
        .library(name: "PluginHostTracing", targets: ["PluginHostTracing"]),
    ],
    dependencies: [
        .package(path: ".."),
        // The root package's test fixtures, a package of their own (two versions of one plugin).
        .package(path: "../Tests/PluginFixtures"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        // A ServiceLogger that writes to a swift-log Logger, and load and shutdown reports as log lines.
        .target(name: "PluginHostLogging",
                dependencies: [hostKit, pluginAPI, .product(name: "Logging", package: "swift-log")],
                swiftSettings: swift6),
        // A ServiceLifecycle Service that runs a PluginHost in a ServiceGroup (and reloads it on SIGHUP).
        .target(name: "PluginHostLifecycle",
                dependencies: [hostKit, "PluginHostLogging", processSignals,
                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                               .product(name: "UnixSignals", package: "swift-service-lifecycle")],
                swiftSettings: swift6),
        // A digest list (HostKit's DigestAllowlist) whose digests swift-crypto computes.
        .target(name: "PluginHostDigests",
                dependencies: [hostKit, .product(name: "Crypto", package: "swift-crypto")],
                swiftSettings: swift6),
        // A host's PluginMetrics recorded into swift-metrics (a Prometheus registry, say).
        .target(name: "PluginHostMetrics",
                dependencies: [hostKit, pluginAPI, .product(name: "CoreMetrics", package: "swift-metrics")],
                swiftSettings: swift6),
        // Each plugin's settings under plugins.NAME of a swift-configuration ConfigReader.
        .target(name: "PluginHostConfiguration",
                dependencies: [pluginAPI, .product(name: "Configuration", package: "swift-configuration")],
                swiftSettings: swift6),
        // One trace across a plugin's process boundary: a call's span context in its headers (PluginCallContext),
        // and the calls a plugin's process served as spans of the host's tracer (PluginServedCallRecorder).
        .target(name: "PluginHostTracing",
                dependencies: [pluginActors, hostKit, .product(name: "Tracing", package: "swift-distributed-tracing")],
                swiftSettings: swift6),
        .testTarget(name: "PluginHostIntegrationsTests",
                    dependencies: ["PluginHostLogging", "PluginHostLifecycle", "PluginHostDigests", "PluginHostMetrics",
                                   "PluginHostConfiguration", "PluginHostTracing", pluginActors,
                                   .product(name: "Configuration", package: "swift-configuration"),
                                   .product(name: "Tracing", package: "swift-distributed-tracing"),
                                   .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                                   hostKit, pluginAPI,
                                   .product(name: "MetricsTestKit", package: "swift-metrics"),
                                   .product(name: "SampleContracts", package: rootIdentity),
                                   .product(name: "Crypto", package: "swift-crypto"),
                                   .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                   .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                                   .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                                   // Built beside the tests, which load them.
                                   .product(name: "ClockPlugin", package: rootIdentity),
                                   .product(name: "GreeterPlugin", package: rootIdentity),
                                   .product(name: "NotesPlugin", package: rootIdentity),
                                   // Two versions of one plugin: the reload tests.
                                   .product(name: "FixtureVersionOne", package: "PluginFixtures"),
                                   .product(name: "FixtureVersionTwo", package: "PluginFixtures"),
                                   // Writes to its own log: the plugin logs test.
                                   .product(name: "FixtureLogger", package: "PluginFixtures"),
                                   // Reads its own settings: the configuration test.
                                   .product(name: "FixtureSettings", package: "PluginFixtures")],
                    swiftSettings: swift6),
    ]
)
