// swift-tools-version:6.0
// Plugins for the SwiftPluginHost `host`, built in their own package, with a contract library of their
// own (WeatherContracts, a package of its own beside them). Copy this folder anywhere and point the
// two paths at your clone of the host repository (here and in WeatherContracts/Package.swift).
import PackageDescription

/// A plugin: a dynamic library the host opens as lib<Name>.so, linking PluginAPI and the contracts.
func plugin(_ name: String) -> Target {
    .target(
        name: name,
        // The host's PluginAPI product re-exports its shared libPluginAPI.so, so the plugins and the
        // host use one copy of PluginAPI's types; WeatherContracts is shared the same way.
        dependencies: [.product(name: "PluginAPI", package: "SwiftPluginHost"),
                       .product(name: "WeatherContracts", package: "WeatherContracts")],
        swiftSettings: [.swiftLanguageMode(.v6)]
    )
}

let package = Package(
    name: "PluginTemplate",
    products: [
        .library(name: "WeatherPlugin", type: .dynamic, targets: ["WeatherPlugin"]),
        .library(name: "MotdPlugin", type: .dynamic, targets: ["MotdPlugin"]),
    ],
    dependencies: [
        // `name:` lets the targets say "SwiftPluginHost" whatever the clone's folder is called
        // (without it, a path dependency is known by its folder's name, such as "main").
        .package(name: "SwiftPluginHost", path: "../.."),
        .package(path: "WeatherContracts"),
    ],
    targets: [plugin("WeatherPlugin"), plugin("MotdPlugin")]
)
