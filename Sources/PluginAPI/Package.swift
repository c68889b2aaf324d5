// swift-tools-version:6.0
// PluginAPI is its own package so that it can ship as one dynamic library: host, plugins and tests
// must share a single copy of its types, or casts across a plugin boundary fail (ARCHITECTURE.md).
import PackageDescription

let package = Package(
    name: "PluginAPI",
    products: [
        .library(name: "PluginAPI", type: .dynamic, targets: ["PluginAPI"]),
    ],
    targets: [
        // The C PluginAPI needs: where the thread's stack stands and its bounds (Engine/StackHeadroom.swift).
        .target(name: "CStackPosition", path: "CStackPosition"),
        .target(
            name: "PluginAPI",
            dependencies: ["CStackPosition"],
            path: ".",
            exclude: ["Package.swift", "CStackPosition"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-enable-library-evolution"])]
        ),
    ]
)
