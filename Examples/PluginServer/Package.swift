// swift-tools-version:6.0
// An HTTP server (Hummingbird 2) whose routes come from plugins loaded from a folder at start-up, in a
// ServiceGroup with the plugin host. A package of its own, depending on the root package and on
// Integrations by path. Run: see README.md.
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
func plugin(_ name: String, also: [Target.Dependency] = []) -> (Product, Target) {
    (.library(name: name, type: .dynamic, targets: [name]),
     .target(name: name, dependencies: [pluginAPI, contracts] + also, swiftSettings: swift6))
}

// The route plugins of the example. The misbehaving ones the tests load beside them are a package of
// their own, Tests/PluginFixtures, built only for the tests (BuildFixtures): the build folder the
// README has the server load holds only these.
let plugins = [plugin("HelloRoutePlugin", also: ["HelloRoute"]), plugin("CounterPlugin"), plugin("VisitsRoutePlugin"),
               // A distributed route: the one to try `--own-process` with.
               plugin("PidRoutePlugin", also: [.product(name: "PluginActors", package: rootIdentity),
                                               .product(name: "DistributedRouteContracts", package: "DistributedRouteContracts")])]

let package = Package(
    name: "PluginServer",
    products: [.executable(name: "plugin-server", targets: ["PluginServer"])] + plugins.map(\.0),
    dependencies: [
        .package(path: "../.."),
        .package(path: "../../Integrations"),
        .package(path: "RouteContracts"),
        .package(path: "DistributedRouteContracts"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // GET /metrics: the host's counts of its plugins in Prometheus text.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // The hello route's code, compiled into its plugin and into the server (for the comparison).
        .target(name: "HelloRoute", dependencies: [contracts], swiftSettings: swift6),
        .executableTarget(name: "PluginServer", dependencies: [
            .product(name: "HostKit", package: rootIdentity), pluginAPI, contracts, "HelloRoute",
            .product(name: "PluginActors", package: rootIdentity),
            .product(name: "DistributedRouteContracts", package: "DistributedRouteContracts"),
            .product(name: "PluginHostLifecycle", package: "Integrations"),
            .product(name: "PluginHostMetrics", package: "Integrations"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swift6),
        // Starts the built server on loopback and sends it real requests (curl, and a client of its own).
        .testTarget(name: "PluginServerTests", swiftSettings: swift6, plugins: ["BuildFixtures"]),
        // Builds the package Tests/PluginFixtures, apart, whenever its files (or the compiler) change.
        .plugin(name: "BuildFixtures", capability: .buildTool(), path: "Tests/BuildFixtures"),
    ] + plugins.map(\.1)
)
