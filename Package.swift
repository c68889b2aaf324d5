// swift-tools-version:6.0
import PackageDescription

// PluginAPI, and every library whose types cross a plugin boundary (SampleContracts), is a nested
// package with a dynamic product: then the process holds one copy of its types and casts across
// plugins work. A target of this package would be linked statically into each plugin instead
// (ARCHITECTURE.md: what was tried, what works).
let pluginAPI = Target.Dependency.product(name: "PluginAPI", package: "PluginAPI")
let contracts = Target.Dependency.product(name: "SampleContracts", package: "SampleContracts")
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
// (`PluginSource.besideExecutable()`). Only sample plugins may end in "Plugin"; fixtures start with "Fixture".
let samples = ["ClockPlugin", "GreeterPlugin", "NotesPlugin", "AccountPlugin"]

let plugins = samples.map { plugin($0, in: "Sources/SamplePlugins") } + [
    // Deliberately broken plugins the tests load next to the good ones.
    plugin("FixtureWrongABI", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureHeaderForge"]),
    plugin("FixtureOldHeader", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureHeaderForge"]),
    plugin("FixtureUnrecordedContracts", in: "Tests/PluginFixtures"),
    plugin("FixtureOwnCopy", in: "Tests/PluginFixtures", contracts: false),
    plugin("FixtureBadMagic", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureHeaderForge"]),
    plugin("FixtureNullEntry", in: "Tests/PluginFixtures", contracts: false),
    plugin("FixtureThrowingModule", in: "Tests/PluginFixtures", contracts: false),
    plugin("FixtureDuplicateKey", in: "Tests/PluginFixtures"),
    plugin("FixtureLateRegistration", in: "Tests/PluginFixtures", contracts: false),
    plugin("FixtureStringClock", in: "Tests/PluginFixtures"),
    plugin("FixtureTwiceDeclared", in: "Tests/PluginFixtures", contracts: false),
    // 5,000 lazy services, each made from the next: deeper than a thread's stack allows.
    plugin("FixtureDeepChain", in: "Tests/PluginFixtures", contracts: false),
    // Declares a plain key and registers it as a slot with parameters.
    plugin("FixtureWrongShape", in: "Tests/PluginFixtures", contracts: false),
    // Declares a plain key and registers it with an async factory.
    plugin("FixtureUndeclaredAsync", in: "Tests/PluginFixtures", contracts: false),
    // Lies in its header's pointers as HOSTKIT_FIXTURE_FORGE says (a test runs it in a `host` child).
    plugin("FixtureForgedHeader", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureHeaderForge"]),
    // Names, keys, a service and an error made of escape sequences and newlines, to be printed escaped.
    plugin("FixtureHostileText", in: "Tests/PluginFixtures", contracts: false),
    // These crash, hang or exit only when HOSTKIT_FIXTURE_MISBEHAVE is set (the isolation tests do).
    plugin("FixtureCrash", in: "Tests/PluginFixtures", contracts: false),
    plugin("FixtureHang", in: "Tests/PluginFixtures", contracts: false),
    plugin("FixtureExit", in: "Tests/PluginFixtures", contracts: false),
    plugin("FixtureCrashBesideClock", in: "Tests/PluginFixtures"),
    plugin("FixtureAsyncCrash", in: "Tests/PluginFixtures", contracts: false),
    // Correct, but crashes a probe that registers it without the clock it requires.
    plugin("FixtureNeedsClock", in: "Tests/PluginFixtures"),
    // Lifecycle hooks a test steers through a control in its host's base locator; B requires A, C requires B.
    plugin("FixtureLifecycleA", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureLifecycleB", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureLifecycleC", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureLifecycleD", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    // One closable instance under two keys; its start refuses when the control says so.
    plugin("FixtureClosables", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    // A lazy closable that the other plugin's shutdown hook makes after its own plugin's were closed.
    plugin("FixtureLateClosable", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureLateMaker", in: "Tests/PluginFixtures", contracts: false),
    // Five versions of one plugin (one name, one type name), and a plugin that requires it: the reload tests.
    plugin("FixtureVersionOne", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionTwo", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionThree", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionFour", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionFive", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionUser", in: "Tests/PluginFixtures", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionUserTwo", in: "Tests/PluginFixtures", contracts: false),
    // Casts what its registrar and its start hook lend it to a ServiceLocator, and says what it got.
    plugin("FixtureDowncast", in: "Tests/PluginFixtures", contracts: false),
    // A C library whose `swift_plugin_entry` is a data object: calling it would crash the host.
    (.library(name: "FixtureDataEntry", type: .dynamic, targets: ["FixtureDataEntry"]),
     .target(name: "FixtureDataEntry", path: "Tests/PluginFixtures/FixtureDataEntry")),
]

let package = Package(
    name: "SwiftPluginHost",
    products: [
        .library(name: "HostKit", targets: ["HostKit"]),
        .executable(name: "host", targets: ["host"]),
        // For plugins written in other packages: re-exports the nested PluginAPI product.
        .library(name: "PluginAPI", targets: ["PluginAPIExport"]),
        // The same for the sample contracts (SampleKeys, Clock, Greeter...): re-exports the nested product.
        .library(name: "SampleContracts", targets: ["SampleContractsExport"]),
        // `swift package check-abi` in a package that depends on this one: its contract libraries' ABI
        // against their last release, and the version rule (README, "Before you release a contract library").
        .plugin(name: "CheckABI", targets: ["CheckABI"]),
    ] + plugins.map(\.0),
    dependencies: [
        .package(path: "Sources/PluginAPI"),
        .package(path: "Sources/SamplePlugins/SampleContracts"),
    ],
    targets: [
        .target(name: "HostKit", dependencies: [pluginAPI, "CDynamicLinker"], swiftSettings: swift6),
        // dladdr and a loaded library's link map, which Swift's Glibc module does not import.
        .target(name: "CDynamicLinker"),
        .target(name: "PluginAPIExport", dependencies: [pluginAPI], swiftSettings: swift6),
        .target(name: "SampleContractsExport", dependencies: [contracts], swiftSettings: swift6),
        // A general host: it knows no sample contract.
        .executableTarget(name: "host", dependencies: ["HostKit", pluginAPI], swiftSettings: swift6),
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
        .testTarget(name: "PluginAPITests", dependencies: [pluginAPI], swiftSettings: swift6),
        .testTarget(name: "HostKitTests", dependencies: ["HostKit", pluginAPI, contracts, "TestSupport"],
                    swiftSettings: swift6),
        // Runs the built `host` and `sample-tour` executables, as a user would.
        .testTarget(name: "HostCLITests", dependencies: ["TestSupport"], swiftSettings: swift6),
        // What HostKitTests and HostCLITests share: where the build put things, temporary folders, polling.
        .target(name: "TestSupport", dependencies: ["HostKit"], path: "Tests/TestSupport", swiftSettings: swift6),
        // The code the lifecycle fixtures share, linked into each of them.
        .target(name: "FixtureLifecycleSupport", dependencies: [pluginAPI],
                path: "Tests/PluginFixtures/FixtureLifecycleSupport", swiftSettings: swift6),
        // Copies a real plugin header with fields changed, for the fixtures that lie in theirs.
        .target(name: "FixtureHeaderForge", dependencies: [pluginAPI],
                path: "Tests/PluginFixtures/FixtureHeaderForge", swiftSettings: swift6),
    ] + plugins.map(\.1)
)
