// swift-tools-version:6.0
// The distributed route contract (DistributedRouteHandler): a route that can be served from a process
// of its own. A contract library of its own beside RouteContracts, so that a plain route plugin links
// neither PluginActors nor this: only a plugin with a distributed route, and the server, do. Its own
// package with a dynamic product built for library evolution and versioned, as any contract library.
import PackageDescription

let package = Package(
    name: "DistributedRouteContracts",
    products: [
        .library(name: "DistributedRouteContracts", type: .dynamic, targets: ["DistributedRouteContracts"]),
    ],
    dependencies: [
        .package(path: "../../../Sources/PluginAPI"),
        .package(path: "../../../Sources/PluginActors"),
        .package(path: "../RouteContracts"),
    ],
    targets: [
        .target(
            name: "DistributedRouteContracts",
            dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"),
                .product(name: "PluginActors", package: "PluginActors"),
                .product(name: "RouteContracts", package: "RouteContracts"),
            ],
            path: ".",
            exclude: ["Package.swift", "api"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-enable-library-evolution"])]
        ),
    ]
)
