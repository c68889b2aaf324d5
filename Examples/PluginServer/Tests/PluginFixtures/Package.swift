// swift-tools-version:6.0
// The misbehaving route plugins the server's tests load beside the good ones. A package of their own,
// so that they are no product of the example: the build folder the README has the server load
// (`--plugins .build/release`) holds only the real route plugins. The example's tests build it
// (Tests/BuildFixtures, a build tool plugin) into a folder of that plugin's in the build folder; its
// PluginAPI, PluginActors and the contract libraries are the example's (the same paths), and the server that loads a fixture
// has them loaded already, so the fixtures use those copies.
import PackageDescription

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]
let pluginAPI = Target.Dependency.product(name: "PluginAPI", package: "PluginAPI")
let contracts = Target.Dependency.product(name: "RouteContracts", package: "RouteContracts")
let pluginActors = Target.Dependency.product(name: "PluginActors", package: "PluginActors")
let distributedContracts = Target.Dependency.product(name: "DistributedRouteContracts", package: "DistributedRouteContracts")

/// A fixture route plugin: a dynamic library the server opens as lib<Name>.so.
func plugin(_ name: String, also: [Target.Dependency] = []) -> (Product, Target) {
    (.library(name: name, type: .dynamic, targets: [name]),
     .target(name: name, dependencies: [pluginAPI, contracts] + also, path: name, swiftSettings: swift6))
}

let fixtures = [
    // Inert unless PLUGIN_SERVER_FIXTURES is set (the tests set it).
    plugin("FixtureConflictRoutes"),
    plugin("FixtureBlockingRoute"),
    plugin("FixtureBlockingPath"),
    plugin("FixtureBadAnswers"),
    // One route plugin in two versions (code in FixtureRouteSupport, linked into each): the reload tests.
    plugin("FixtureRouteOne", also: ["FixtureRouteSupport"]),
    plugin("FixtureRouteTwo", also: ["FixtureRouteSupport"]),
    // A distributed route in two versions (code in FixtureRemoteRouteSupport), served in process or from a
    // process of its own: the crash and upgrade tests.
    plugin("FixtureRemoteRoute", also: ["FixtureRemoteRouteSupport"]),
    plugin("FixtureRemoteRouteTwo", also: ["FixtureRemoteRouteSupport"]),
]

let package = Package(
    name: "RouteFixtures",
    products: fixtures.map(\.0),
    dependencies: [
        .package(path: "../../../../Sources/PluginAPI"),
        .package(path: "../../../../Sources/PluginActors"),
        .package(path: "../../RouteContracts"),
        .package(path: "../../DistributedRouteContracts"),
    ],
    targets: [
        .target(name: "FixtureRouteSupport", dependencies: [pluginAPI, contracts], path: "FixtureRouteSupport",
                swiftSettings: swift6),
        .target(name: "FixtureRemoteRouteSupport", dependencies: [pluginAPI, contracts, pluginActors, distributedContracts],
                path: "FixtureRemoteRouteSupport", swiftSettings: swift6),
    ] + fixtures.map(\.1)
)
