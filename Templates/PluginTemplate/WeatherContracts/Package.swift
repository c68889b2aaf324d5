// swift-tools-version:6.0
// The contracts your plugins share: the protocols and value types one plugin provides and another
// (or the host) casts to. It must be its own package with a dynamic product, so that the process holds
// one copy of its types: a plain target beside the plugins would be linked into each of them, and a
// service of one plugin would not be of the type another plugin asks for. Built for library evolution,
// so a plugin built against an older release keeps working with a newer one that only adds.
//
// Before each release (and in CI): ci/check-abi, which runs the host package's `swift package
// check-abi`: the ABI against api/ (the last release's), a break needing a new major version, an
// addition a new minor one. At a release: swift package --allow-writing-to-package-directory
// check-abi --update, and commit api/.
import PackageDescription

let package = Package(
    name: "WeatherContracts",
    products: [
        .library(name: "WeatherContracts", type: .dynamic, targets: ["WeatherContracts"]),
    ],
    dependencies: [
        // The host repository (its PluginAPI product, for keys and LibraryVersion, and its `check-abi`
        // command); point the path at your clone, as in ../Package.swift.
        .package(name: "SwiftPluginHost", path: "../../.."),
    ],
    targets: [
        .target(
            name: "WeatherContracts",
            dependencies: [.product(name: "PluginAPI", package: "SwiftPluginHost")],
            path: ".",
            exclude: ["Package.swift", "api", "ci"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-enable-library-evolution"])]
        ),
    ]
)
