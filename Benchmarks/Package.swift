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

let package = Package(
    name: "Benchmarks",
    dependencies: [
        .package(path: "../Sources/PluginAPI"),
        .package(path: ".."),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    ],
    targets: [
        // mallinfo2 for the registration case: Swift's Glibc module does not import <malloc.h>.
        .target(name: "HeapStats"),
        .executableTarget(
            name: "locator-benchmarks",
            dependencies: [
                .product(name: "PluginAPI", package: "PluginAPI"),
                .product(name: "HostKit", package: rootIdentity),
                .product(name: "Swinject", package: "Swinject"),
                "HeapStats",
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
