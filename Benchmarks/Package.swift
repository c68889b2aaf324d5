// swift-tools-version:6.0
// The benchmarks are their own package, so the root Package.swift stays free of third-party packages.
// Run: swift run -c release locator-benchmarks   (see BENCHMARKS.md)
import PackageDescription

/// SwiftPM names a package that is depended on by path after its folder (lowercased): the root package's
/// identity is whatever the clone's folder is called, so it is computed here, not written down.
let rootIdentity: String = {
    let benchmarks = Context.packageDirectory.split(separator: "/")
    return String(benchmarks.dropLast().last ?? "main").lowercased()
}()

let pluginAPI = Target.Dependency.product(name: "PluginAPI", package: "PluginAPI")
let pluginActors = Target.Dependency.product(name: "PluginActors", package: "PluginActors")
let remoteContracts = Target.Dependency.product(name: "FixtureRemoteContracts", package: "FixtureRemoteContracts")

let package = Package(
    name: "Benchmarks",
    products: [
        // The fixture FixtureEchoPlugin, built from the fixture's own source (a link into Tests/PluginFixtures:
        // the fixtures' package is built only by the root package's tests), for the own-process cases.
        .library(name: "FixtureEchoPlugin", type: .dynamic, targets: ["FixtureEchoPlugin"]),
    ],
    dependencies: [
        .package(path: "../Sources/PluginAPI"),
        .package(path: "../Sources/PluginActors"),
        // The echo contract of the fixtures served from a process of their own (`Echo`, `EchoMessage`).
        .package(path: "../Tests/PluginFixtures/FixtureRemoteContracts"),
        .package(path: ".."),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
    ],
    targets: [
        // mallinfo2 for the registration case: Swift's Glibc module does not import <malloc.h>.
        .target(name: "HeapStats"),
        // The shared-memory floor of the call cases: a mailbox in a memfd, futex wake-ups (C: atomics and `syscall`).
        .target(name: "SharedMailbox"),
        .executableTarget(
            name: "locator-benchmarks",
            dependencies: [
                pluginAPI,
                pluginActors,
                remoteContracts,
                .product(name: "HostKit", package: rootIdentity),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Dependencies", package: "swift-dependencies"),
                "HeapStats",
                "SharedMailbox",
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(name: "FixtureEchoPlugin", dependencies: [pluginAPI, pluginActors, remoteContracts, "FixtureEchoSupport"],
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // The echo service the plugin serves (links into Tests/PluginFixtures too).
        .target(name: "FixtureEchoSupport", dependencies: [pluginAPI, pluginActors, remoteContracts],
                swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
