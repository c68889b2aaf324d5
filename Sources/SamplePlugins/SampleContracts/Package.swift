// swift-tools-version:6.0
// The service contracts the sample plugins and the host share. Like PluginAPI it is its own package
// with a dynamic product: a protocol must exist once in the process for casts across plugins to work.
import PackageDescription

let package = Package(
    name: "SampleContracts",
    products: [
        .library(name: "SampleContracts", type: .dynamic, targets: ["SampleContracts"]),
    ],
    dependencies: [
        .package(path: "../../PluginAPI"),
    ],
    targets: [
        .target(
            name: "SampleContracts",
            dependencies: [.product(name: "PluginAPI", package: "PluginAPI")],
            path: ".",
            exclude: ["Package.swift"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-enable-library-evolution"])]
        ),
    ]
)
