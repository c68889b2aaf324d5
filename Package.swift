// swift-tools-version:6.0
import PackageDescription

// PluginAPI, and every library whose types cross a plugin boundary (SampleContracts), is a nested
// package with a dynamic product: then the process holds one copy of its types and casts across
// plugins work. A target of this package would be linked statically into each plugin instead
// (ARCHITECTURE.md: what was tried, what works).
let pluginAPI = Target.Dependency.product(name: "PluginAPI", package: "PluginAPI")
let contracts = Target.Dependency.product(name: "SampleContracts", package: "SampleContracts")
let pluginActors = Target.Dependency.product(name: "PluginActors", package: "PluginActors")
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// A plugin: a target built as its own shared library. `also` is linked into it statically.
func plugin(_ name: String, in folder: String, contracts needed: Bool = true,
            also: [Target.Dependency] = []) -> (Product, Target) {
    (.library(name: name, type: .dynamic, targets: [name]),
     .target(name: name, dependencies: (needed ? [pluginAPI, contracts] : [pluginAPI]) + also,
             path: "\(folder)/\(name)", swiftSettings: swift6))
}

// The sample plugins, the one list of them. No code can import a manifest, so `host`, `sample-tour` and
// the tests find them by their names instead: they load every `lib*Plugin.so` beside them
// (`PluginSource.besideExecutable()`). Only sample plugins may end in "Plugin". The plugins the tests
// load besides (broken, hostile, steerable ones, named "Fixture...") are a package of their own,
// Tests/PluginFixtures: no product of this package, built apart and only for the tests (see TestSupport below).
let samples = ["ClockPlugin", "GreeterPlugin", "NotesPlugin", "AccountPlugin"]

let plugins = samples.map { plugin($0, in: "Sources/SamplePlugins") }

let package = Package(
    name: "SwiftPluginHost",
    products: [
        .library(name: "HostKit", targets: ["HostKit"]),
        // A product of its own, not reached through HostKit: the signals know nothing of plugins, and a
        // server that only wants SIGHUP as an AsyncSequence (Integrations' PluginHostService) should not
        // have to link the loader. Its promise is small (one sequence of signal numbers, its iterator);
        // through HostKit it would be the same promise on HostKit's surface, by an underscored re-export.
        .library(name: "ProcessSignals", targets: ["ProcessSignals"]),
        .executable(name: "host", targets: ["host"]),
        // What a host built on HostKit runs for each plugin it places in a process of its own.
        .executable(name: "plugin-process", targets: ["plugin-process"]),
        // For plugins written in other packages: re-exports the nested PluginAPI product.
        .library(name: "PluginAPI", targets: ["PluginAPIExport"]),
        // The same for PluginActors, the actor system of services served from a process of their own.
        .library(name: "PluginActors", targets: ["PluginActorsExport"]),
        // The same for the sample contracts (SampleKeys, Clock, Greeter...): re-exports the nested product.
        .library(name: "SampleContracts", targets: ["SampleContractsExport"]),
        // `swift package check-abi` in a package that depends on this one: its contract libraries' ABI
        // against their last release, and the version rule (README, "Before you release a contract library").
        .plugin(name: "CheckABI", targets: ["CheckABI"]),
    ] + plugins.map(\.0),
    dependencies: [
        .package(path: "Sources/PluginAPI"),
        .package(path: "Sources/PluginActors"),
        // The fixtures' distributed contract, which the tests of plugins in a process of their own call
        // through (the fixture plugins link their own build of it, as plugins built elsewhere do).
        .package(path: "Tests/PluginFixtures/FixtureRemoteContracts"),
        .package(path: "Sources/SamplePlugins/SampleContracts"),
    ],
    targets: [
        .target(name: "HostKit", dependencies: [pluginAPI, pluginActors, "DynamicLoading", "ProcessSignals"], swiftSettings: swift6),
        // The floor under HostKit: what reads, checks and maps files (ELF, paths, the dynamic linker,
        // foreign memory, system calls), knowing nothing of plugins' lives. No product: HostKit only.
        .target(name: "DynamicLoading", dependencies: ["CDynamicLinker", "CSandbox"], swiftSettings: swift6),
        // The system calls a plugin's process confines itself with (Landlock, seccomp, namespaces),
        // which Swift's Glibc module does not import.
        .target(name: "CSandbox"),
        // The process's one signal relay and its AsyncSequence; depends on nothing.
        .target(name: "ProcessSignals", swiftSettings: swift6),
        // dladdr and a loaded library's link map, which Swift's Glibc module does not import.
        .target(name: "CDynamicLinker"),
        .target(name: "PluginAPIExport", dependencies: [pluginAPI], swiftSettings: swift6),
        .target(name: "PluginActorsExport", dependencies: [pluginActors], swiftSettings: swift6),
        .target(name: "SampleContractsExport", dependencies: [contracts], swiftSettings: swift6),
        // A general host: it knows no sample contract.
        .executableTarget(name: "host", dependencies: ["HostKit", pluginAPI], swiftSettings: swift6),
        // The child a host built on HostKit starts for each plugin placed in a process of its own.
        .executableTarget(name: "plugin-process", dependencies: ["HostKit"], swiftSettings: swift6),
        // A contract library's ABI against its last release, and the version rule; check-abi and .ci/api-check run it.
        .executableTarget(name: "abi-gate", swiftSettings: swift6),
        .plugin(name: "CheckABI",
                // No declared permission: SwiftPM would then refuse every plain check without
                // --allow-writing-to-package-directory, which only --update needs.
                capability: .command(intent: .custom(verb: "check-abi", description:
                    "Compares each contract library's ABI with its last release: a break needs a new major version, an addition a new minor one")),
                dependencies: ["abi-gate"]),
        // The sample plugins at work: loads them and uses each service through its contract.
        .executableTarget(name: "sample-tour", dependencies: ["HostKit", pluginAPI, contracts],
                          path: "Sources/SamplePlugins/SampleTour", swiftSettings: swift6),
        .testTarget(name: "PluginAPITests", dependencies: [pluginAPI, "TestBounds"], swiftSettings: swift6),
        .testTarget(name: "PluginActorsTests", dependencies: [pluginActors, pluginAPI], swiftSettings: swift6),
        .testTarget(name: "ProcessSignalsTests", dependencies: ["ProcessSignals"], swiftSettings: swift6),
        .testTarget(name: "HostKitTests", dependencies: ["HostKit", "DynamicLoading", "ProcessSignals", pluginAPI, pluginActors, contracts, "TestSupport",
                                                        .product(name: "FixtureRemoteContracts", package: "FixtureRemoteContracts")],
                    swiftSettings: swift6),
        // Runs the built `host` and `sample-tour` executables, as a user would.
        .testTarget(name: "HostCLITests", dependencies: ["TestSupport"], swiftSettings: swift6),
        // What HostKitTests and HostCLITests share: where the build put things, temporary folders, polling.
        // Building it builds the fixture plugins too (BuildFixtures), once for both, and tells it where they
        // are. A test target (SwiftPM lets test targets depend on one), so that only `swift build
        // --build-tests` and `swift test` build it and the fixtures: a plain `swift build` does not.
        .testTarget(name: "TestSupport", dependencies: ["HostKit", "TestBounds"], path: "Tests/TestSupport", swiftSettings: swift6,
                    plugins: ["BuildFixtures"]),
        // The bound of every wait in the tests that a starved cooperative pool cannot use up (PollBound):
        // apart from TestSupport so that PluginAPITests have it without HostKit.
        .testTarget(name: "TestBounds", path: "Tests/TestBounds", swiftSettings: swift6),
        // Builds the package Tests/PluginFixtures, apart, whenever its files (or the compiler) change.
        .plugin(name: "BuildFixtures", capability: .buildTool(), path: "Tests/BuildFixtures"),
    ] + plugins.map(\.1)
)
