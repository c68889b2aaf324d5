// swift-tools-version:6.0
// An HTTP server (Hummingbird 2) whose routes come from plugins loaded from a folder at start-up, in a
// ServiceGroup with the plugin host. A package of its own, depending on the root package and on
// Integrations by path. Run: swift run plugin-server --plugins .build/debug (HostKit.docc/Hosting.md, "In a server").
import PackageDescription

/// SwiftPM names a package depended on by path after its folder.
let rootIdentity: String = {
    let parts = Context.packageDirectory.split(separator: "/")
    return String(parts.dropLast(2).last ?? "main").lowercased()
}()

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
let pluginAPI = Target.Dependency.product(name: "PluginAPI", package: rootIdentity)
let contracts = Target.Dependency.product(name: "RouteContracts", package: "RouteContracts")

/// A route plugin: a dynamic library the server opens as lib<Name>.so; it links PluginAPI and the
/// route contracts, never Hummingbird.
func plugin(_ name: String, in folder: String = "Sources", also: [Target.Dependency] = []) -> (Product, Target) {
    (.library(name: name, type: .dynamic, targets: [name]),
     .target(name: name, dependencies: [pluginAPI, contracts] + also, path: "\(folder)/\(name)", swiftSettings: swift6))
}

let plugins = [plugin("HelloRoutePlugin", also: ["HelloRoute"]), plugin("CounterPlugin"), plugin("VisitsRoutePlugin")] + [
    // Misbehaving route plugins the tests load beside the good ones (inert unless PLUGIN_SERVER_FIXTURES is set).
    plugin("FixtureConflictRoutes", in: "Tests/PluginFixtures"),
    plugin("FixtureBlockingRoute", in: "Tests/PluginFixtures"),
    plugin("FixtureBlockingPath", in: "Tests/PluginFixtures"),
    plugin("FixtureBadAnswers", in: "Tests/PluginFixtures"),
    // One route plugin in two versions (code in FixtureRouteSupport, linked into each): the reload tests.
    plugin("FixtureRouteOne", in: "Tests/PluginFixtures", also: ["FixtureRouteSupport"]),
    plugin("FixtureRouteTwo", in: "Tests/PluginFixtures", also: ["FixtureRouteSupport"]),
]

let package = Package(
    name: "PluginServer",
    products: [.executable(name: "plugin-server", targets: ["PluginServer"])] + plugins.map(\.0),
    dependencies: [
        .package(path: "../.."),
        .package(path: "../../Integrations"),
        .package(path: "RouteContracts"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The hello route's code, compiled into its plugin and into the server (for the comparison).
        .target(name: "HelloRoute", dependencies: [contracts], swiftSettings: swift6),
        .executableTarget(name: "PluginServer", dependencies: [
            .product(name: "HostKit", package: rootIdentity), pluginAPI, contracts, "HelloRoute",
            .product(name: "PluginHostLifecycle", package: "Integrations"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swift6),
        .target(name: "FixtureRouteSupport", dependencies: [pluginAPI, contracts],
                path: "Tests/PluginFixtures/FixtureRouteSupport", swiftSettings: swift6),
        // Starts the built server on loopback and sends it real requests (curl, and a client of its own).
        .testTarget(name: "PluginServerTests", swiftSettings: swift6),
    ] + plugins.map(\.1)
)
