// swift-tools-version:6.0
import PackageDescription

// PluginAPI (and every library of types shared across a plugin boundary) is a nested package with a
// dynamic product, so the process holds one copy of its types (see the README, "How it is built").
let pluginAPI = Target.Dependency.product(name: "PluginAPI", package: "PluginAPI")
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "SwiftPluginHost",
    products: [],
    dependencies: [
        .package(path: "Sources/PluginAPI"),
    ],
    targets: [
        .testTarget(name: "PluginAPITests", dependencies: [pluginAPI], swiftSettings: swift6),
    ]
)
