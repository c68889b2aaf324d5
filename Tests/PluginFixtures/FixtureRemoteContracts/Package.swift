// swift-tools-version:6.0
// The contract of the fixtures served from a process of their own: a contract library as its authors
// build one, a package of its own with a dynamic product built for library evolution (a target of the
// fixtures' package would be linked into each fixture, and its protocol would exist twice).
import PackageDescription

let package = Package(
    name: "FixtureRemoteContracts",
    products: [
        .library(name: "FixtureRemoteContracts", type: .dynamic, targets: ["FixtureRemoteContracts"]),
    ],
    dependencies: [
        .package(path: "../../../Sources/PluginAPI"),
        .package(path: "../../../Sources/PluginActors"),
    ],
    targets: [
        .target(
            name: "FixtureRemoteContracts",
            dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"),
                .product(name: "PluginActors", package: "PluginActors"),
            ],
            path: ".",
            exclude: ["Package.swift"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-enable-library-evolution"])]
        ),
    ]
)
