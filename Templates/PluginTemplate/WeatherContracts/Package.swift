// swift-tools-version:6.0
// The contracts your plugins share: the protocols and value types one plugin provides and another
// (or the host) casts to. It must be its own package with a dynamic product, so that the process holds
// one copy of its types: a plain target beside the plugins would be linked into each of them, and a
// service of one plugin would not be of the type another plugin asks for. Built for library evolution,
// so a plugin built against an older release keeps working with a newer one that only adds.
import PackageDescription

let package = Package(
    name: "WeatherContracts",
    products: [
        .library(name: "WeatherContracts", type: .dynamic, targets: ["WeatherContracts"]),
    ],
    dependencies: [
        // The host repository's PluginAPI package (for keys and LibraryVersion); point it at your clone.
        .package(path: "../../../Sources/PluginAPI"),
    ],
    targets: [
        .target(
            name: "WeatherContracts",
            dependencies: [.product(name: "PluginAPI", package: "PluginAPI")],
            path: ".",
            exclude: ["Package.swift"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-enable-library-evolution"])]
        ),
    ]
)
