// swift-tools-version:6.0
// The plugins the tests load: deliberately broken, hostile or steerable ones, next to the sample
// plugins. A package of its own, so that they are no product of the root package (a package that
// depends on it never sees them) and are built into a folder of their own, not beside the sample
// plugins. The root package's tests build it (Tests/BuildFixtures, a build tool plugin) into a
// folder of that plugin's in the build folder. Its PluginAPI, PluginActors and SampleContracts are the root package's (the
// same paths), and a process that loads a fixture has PluginAPI loaded already, so the fixtures use that copy.
import PackageDescription

let pluginAPI = Target.Dependency.product(name: "PluginAPI", package: "PluginAPI")
let contracts = Target.Dependency.product(name: "SampleContracts", package: "SampleContracts")
let pluginActors = Target.Dependency.product(name: "PluginActors", package: "PluginActors")
let remoteContracts = Target.Dependency.product(name: "FixtureRemoteContracts", package: "FixtureRemoteContracts")
let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// A fixture plugin: a target built as its own shared library. `also` is linked into it statically.
func plugin(_ name: String, contracts needed: Bool = true, also: [Target.Dependency] = []) -> (Product, Target) {
    (.library(name: name, type: .dynamic, targets: [name]),
     .target(name: name, dependencies: (needed ? [pluginAPI, contracts] : [pluginAPI]) + also, path: name,
             swiftSettings: swift6))
}

let fixtures = [
    // Deliberately broken plugins the tests load next to the good ones.
    plugin("FixtureWrongABI", contracts: false, also: ["FixtureHeaderForge"]),
    plugin("FixtureOldHeader", contracts: false, also: ["FixtureHeaderForge"]),
    plugin("FixtureUnrecordedContracts"),
    plugin("FixtureOwnCopy", contracts: false),
    plugin("FixtureBadMagic", contracts: false, also: ["FixtureHeaderForge"]),
    plugin("FixtureNullEntry", contracts: false),
    plugin("FixtureThrowingModule", contracts: false),
    plugin("FixtureDuplicateKey"),
    plugin("FixtureLateRegistration", contracts: false),
    plugin("FixtureStringClock"),
    plugin("FixtureTwiceDeclared", contracts: false),
    // 5,000 lazy services, each made from the next: deeper than a thread's stack allows.
    plugin("FixtureDeepChain", contracts: false),
    // Declares a plain key and registers it as a slot with parameters.
    plugin("FixtureWrongShape", contracts: false),
    // Declares a plain key and registers it with an async factory.
    plugin("FixtureUndeclaredAsync", contracts: false),
    // Lies in its header's pointers as HOSTKIT_FIXTURE_FORGE says (a test runs it in a `host` child).
    plugin("FixtureForgedHeader", contracts: false, also: ["FixtureHeaderForge"]),
    // Names, keys, a service and an error made of escape sequences and newlines, to be printed escaped.
    plugin("FixtureHostileText", contracts: false),
    // These crash, hang or exit only when HOSTKIT_FIXTURE_MISBEHAVE is set (the isolation tests do).
    plugin("FixtureCrash", contracts: false),
    plugin("FixtureHang", contracts: false),
    plugin("FixtureExit", contracts: false),
    plugin("FixtureCrashBesideClock"),
    plugin("FixtureAsyncCrash", contracts: false),
    // Correct, but crashes a probe that registers it without the clock it requires.
    plugin("FixtureNeedsClock"),
    // Requires the clock and tries to get the greeter, undeclared: while it registers, at start, in a factory.
    plugin("FixtureUndeclaredGet"),
    // Writes to its own log while it registers, in a factory, at every level at start, and at shutdown.
    plugin("FixtureLogger", contracts: false),
    // Reads its own settings while it registers (typed, a secret, a key another plugin's would be) and says what it read.
    plugin("FixtureSettings", contracts: false),
    // Crashes while it registers if its `endpoint` setting is `crash`: what a probe must register it with.
    plugin("FixtureSettingsCrash", contracts: false),
    // Eight threads at once write lines longer than a pipe takes in one write to its own log.
    plugin("FixtureLogFlood", contracts: false),
    // The control the lifecycle fixtures require, answering `ok`: for a host without one (`host serve`).
    plugin("FixtureQuietControl", contracts: false, also: ["FixtureLifecycleSupport"]),
    // Lifecycle hooks a test steers through a control in its host's base locator; B requires A, C requires B.
    plugin("FixtureLifecycleA", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureLifecycleB", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureLifecycleC", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureLifecycleD", contracts: false, also: ["FixtureLifecycleSupport"]),
    // One closable instance under two keys; its start refuses when the control says so.
    plugin("FixtureClosables", contracts: false, also: ["FixtureLifecycleSupport"]),
    // A lazy closable that the other plugin's shutdown hook makes after its own plugin's were closed.
    plugin("FixtureLateClosable", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureLateMaker", contracts: false),
    // Five versions of one plugin (one name, one type name), and a plugin that requires it: the reload tests.
    plugin("FixtureVersionOne", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionTwo", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionThree", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionFour", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionFive", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionUser", contracts: false, also: ["FixtureLifecycleSupport"]),
    plugin("FixtureVersionUserTwo", contracts: false),
    plugin("FixtureVersionUserThree", contracts: false),
    plugin("FixtureProvider", contracts: false),
    // Casts what its registrar and its start hook lend it to a ServiceLocator, and says what it got.
    plugin("FixtureDowncast", contracts: false),
    // A distributed service (FixtureRemoteContracts' Echo, which crashes, exits, hangs... on request), and a
    // plugin that requires it and calls it in its start hook: served in process or from a process of their own.
    plugin("FixtureEchoPlugin", contracts: false, also: [pluginActors, remoteContracts, "FixtureEchoSupport"]),
    // Version 2.0.0 of the echo plugin (one plugin name, another file): the upgrade of the reload tests.
    plugin("FixtureEchoPluginTwo", contracts: false, also: [pluginActors, remoteContracts, "FixtureEchoSupport"]),
    plugin("FixtureEchoUserPlugin", contracts: false, also: [pluginActors, remoteContracts]),
    // Tries, from its own process, what a plugin may try against its host (files, network, signals,
    // ptrace, memory, programs, privileged calls): the sandbox's tests, with it on and off.
    plugin("FixtureSandboxProbe", contracts: false, also: [pluginActors, remoteContracts, "FixtureDoors"]),
    // Requires the echo service and provides a distributed one: placed in a process of its own beside the echo plugin's.
    plugin("FixtureEchoRelayPlugin", contracts: false, also: [pluginActors, remoteContracts]),
    // A C library whose `swift_plugin_entry` is a data object: calling it would crash the host.
    (.library(name: "FixtureDataEntry", type: .dynamic, targets: ["FixtureDataEntry"]),
     .target(name: "FixtureDataEntry", path: "FixtureDataEntry")),
]

let package = Package(
    name: "PluginFixtures",
    products: fixtures.map(\.0),
    dependencies: [
        .package(path: "../../Sources/PluginAPI"),
        .package(path: "../../Sources/SamplePlugins/SampleContracts"),
        .package(path: "../../Sources/PluginActors"),
        // The contract of the distributed fixtures: a contract library is a package of its own.
        .package(path: "FixtureRemoteContracts"),
    ],
    targets: [
        // The code the lifecycle fixtures share, linked into each of them.
        .target(name: "FixtureLifecycleSupport", dependencies: [pluginAPI], path: "FixtureLifecycleSupport",
                swiftSettings: swift6),
        // The echo fixtures' service and plugin, linked into each version of the echo plugin.
        .target(name: "FixtureEchoSupport", dependencies: [pluginAPI, pluginActors, remoteContracts], path: "FixtureEchoSupport",
                swiftSettings: swift6),
        // The doors the sandbox probe tries, as system calls (several are variadic in C, or not imported).
        .target(name: "FixtureDoors", path: "FixtureDoors"),
        // Copies a real plugin header with fields changed, for the fixtures that lie in theirs.
        .target(name: "FixtureHeaderForge", dependencies: [pluginAPI], path: "FixtureHeaderForge", swiftSettings: swift6),
    ] + fixtures.map(\.1)
)
