// swift-tools-version:6.0
// What a route plugin and the example server share, in plain value types: plugins never link the web
// framework. Its own package with a dynamic product (one copy of its types in the process), built for
// library evolution and versioned, as any contract library (README, "Your own contracts").
import PackageDescription

let package = Package(
    name: "RouteContracts",
    products: [
        .library(name: "RouteContracts", type: .dynamic, targets: ["RouteContracts"]),
    ],
    dependencies: [
        .package(path: "../../../Sources/PluginAPI"),
    ],
    targets: [
        .target(
            name: "RouteContracts",
            dependencies: [.product(name: "PluginAPI", package: "PluginAPI")],
            path: ".",
            exclude: ["Package.swift", "api"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-enable-library-evolution"])]
        ),
    ]
)
