// swift-tools-version:6.0
// PluginActors is its own package for the reason PluginAPI is: a plugin names its actor system's
// type (`typealias ActorSystem = PluginActorSystem`), the host and the plugin's own process make and
// serve those actors, and a type must exist once in a process for that to work: one dynamic library,
// built for library evolution, shared by host, plugins and contract libraries.
import PackageDescription

let package = Package(
    name: "PluginActors",
    products: [
        .library(name: "PluginActors", type: .dynamic, targets: ["PluginActors"]),
    ],
    dependencies: [
        .package(path: "../PluginAPI"),
    ],
    targets: [
        .target(
            name: "PluginActors",
            dependencies: [.product(name: "PluginAPI", package: "PluginAPI")],
            path: ".",
            exclude: ["Package.swift"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-enable-library-evolution"])]
        ),
    ]
)
