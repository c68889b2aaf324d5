// swift-tools-version:6.0
// A plugin for the SwiftPluginHost `host`, built in its own package. Copy this folder anywhere and
// point the dependency at your clone of the host repository (a path or a git URL).
import PackageDescription

let package = Package(
    name: "PluginTemplate",
    products: [
        // A plugin is a dynamic library; the host opens lib<Name>.so with dlopen.
        .library(name: "MotdPlugin", type: .dynamic, targets: ["MotdPlugin"]),
    ],
    dependencies: [
        // `name:` lets the target below say "SwiftPluginHost" whatever the clone's folder is called
        // (without it, a path dependency is known by its folder's name, such as "main").
        .package(name: "SwiftPluginHost", path: "../.."),
    ],
    targets: [
        .target(
            name: "MotdPlugin",
            // The host's PluginAPI product re-exports its shared libPluginAPI.so, so the plugin and
            // the host use one copy of PluginAPI's types.
            dependencies: [.product(name: "PluginAPI", package: "SwiftPluginHost")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
