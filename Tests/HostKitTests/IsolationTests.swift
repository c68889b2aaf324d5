import Foundation
import HostKit
import PluginAPI
import SampleContracts
import TestSupport
import Testing

/// Plugins that crash or hang while loading, probed in a child process (the built `host __probe`).
@Suite struct IsolationTests {
    /// The probes' bound: the point for the hanging fixture, which waits it out, and generous, as the
    /// good plugins' probes must end within it too (3 s once killed the clock plugin's probe under
    /// ThreadSanitizer with two builds beside the suite).
    let probe = PluginProbe(executable: "\(BuiltPlugins.directory)/host", arguments: ["__probe"],
                            timeout: .seconds(30), environment: misbehave)

    /// The pipeline tells each probe child where its load's copies are (the child makes its folder
    /// inside, so that it goes with the load's): a child here that records what it was told, and
    /// answers "registered", sees the folder the load made in the discovery's folder for copies, and the
    /// folder is gone once the load is done. (The child guessed it from the files it was handed before.)
    @Test func aProbeChildIsToldItsLoadsFolderOfCopies() async throws {
        let work = try TemporaryFolder()
        let record = work.file("told")
        let child = #"printf "%s" "$SWIFT_PLUGIN_PROBE_FOLDER" > "$0"; printf "%s registered\n" "$SWIFT_PLUGIN_PROBE_TOKEN""#
        let probe = PluginProbe(executable: "/bin/sh", arguments: ["-c", child, record], timeout: .seconds(60))
        let host = PluginHost(discovery: PluginDiscovery(shadowFolder: work.path))
        let report = await onAThreadOfItsOwn { host.load([.file(BuiltPlugins.path("ClockPlugin"))], probe: probe) }
        #expect(report.loadedNames == ["clock"], "\(report.problems)")
        let told = try String(contentsOfFile: record, encoding: .utf8)
        #expect(told.hasPrefix(work.path + "/swift-plugin-host-"), "told '\(told)'")
        #expect(!told.isEmpty && !FileManager.default.fileExists(atPath: told))
    }

    /// A plugin placed in a process of its own is never opened in a probe child, which is no sandbox:
    /// not probed itself, and not named as the provider of a plugin here that requires it, which is
    /// probed without it ("opened" passes then). Before, that plugin's registration probe opened the
    /// provider in the child with the host's rights. A child here records what it was asked.
    @Test func aPluginOfAProcessOfItsOwnIsNeverOpenedInAProbeChild() async throws {
        let work = try TemporaryFolder()
        let record = work.file("asked")
        let child = #"printf "%s [%s]\n" "$1" "$SWIFT_PLUGIN_PROBE_PROVIDERS" >> "$0"; "#
            + #"if [ -z "$SWIFT_PLUGIN_PROBE_PROVIDERS" ]; then verdict=opened; else verdict=registered; fi; "#
            + #"printf "%s %s\n" "$SWIFT_PLUGIN_PROBE_TOKEN" "$verdict""#
        let probe = PluginProbe(executable: "/bin/sh", arguments: ["-c", child, record], timeout: .seconds(60))
        let host = PluginHost(processes: OwnProcessTests.processes())
        defer { host.shutdown() }
        let report = await onAThreadOfItsOwn {
            host.load(["FixtureEchoUserPlugin", "FixtureEchoPlugin"].map { .file(BuiltPlugins.path($0)) }, probe: probe)
        }
        #expect(report.problems.isEmpty, "\(report.problems)")
        let asked = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(asked.count == 2 && asked.allSatisfy { $0.contains("libFixtureEchoUserPlugin.so") }, "\(asked)")
        #expect(!asked.contains { $0.contains("libFixtureEchoPlugin.so") }, "\(asked)")
    }

    /// A provider loaded without a probe, whose own requirement the host's base serves, counts in the
    /// child that probes a plugin requiring it: the child registers what the host registered, and
    /// judges only the probed plugin (a child that planned the provider again refused it, for want of
    /// the base, and the plugin failed its probe).
    @Test func aProviderServedByTheHostsBaseStillCountsInTheProbeChild() async throws {
        let base = ServiceLocator()
        try base.addService(key: ServiceLocatorEasyKey<String>(name: "fixture.lifecycle.a"), service: "the host's a")
        let host = try PluginHost(base: base)
        // The control B and C require, from a plugin: the probe child registers it too.
        let first = host.load([.file(BuiltPlugins.path("FixtureQuietControl")), .file(BuiltPlugins.path("FixtureLifecycleB"))])
        #expect(first.loadedNames == ["fixture-quiet-control", "fixture-lifecycle-b"], "\(first.problems)")
        let probe = PluginProbe(executable: probe.executable, arguments: probe.arguments, timeout: probe.timeout)
        let second = await onAThreadOfItsOwn { host.load([.file(BuiltPlugins.path("FixtureLifecycleC"))], probe: probe) }
        #expect(second.loadedNames == ["fixture-lifecycle-c"], "\(second.problems)")
    }

    /// The same in a reload with a probe after a load without one: the new file is upgraded.
    @Test func aReloadWithAProbeCountsAProviderServedByTheHostsBase() async throws {
        let base = ServiceLocator()
        try base.addService(key: ServiceLocatorEasyKey<String>(name: "fixture.lifecycle.a"), service: "the host's a")
        let host = try PluginHost(base: base)
        let folder = try TemporaryFolder()
        try folder.install("FixtureQuietControl", as: "libcontrol.so")
        try folder.install("FixtureLifecycleB", as: "libb.so")
        try folder.install("FixtureLifecycleC", as: "libc.so")
        #expect(host.load([.directory(folder.path)]).problems.isEmpty)
        try folder.install("FixtureLifecycleC", as: "libc.so")
        let probe = PluginProbe(executable: probe.executable, arguments: probe.arguments, timeout: probe.timeout)
        let report = await onAThreadOfItsOwn { host.reload(probe: probe) }
        #expect(report.entries.map(\.action) == [.upgraded], "\(report.text)")
    }

    @Test func aCrashingAndAHangingPluginAreReportedAndTheHostLoadsTheRest() async throws {
        let host = PluginHost()
        // The probe waits for its children: on a thread of its own, not one of the async tests' pool.
        let probe = probe
        let report = await onAThreadOfItsOwn {
            host.load(["FixtureCrash", "ClockPlugin", "FixtureHang", "GreeterPlugin"].map { .file(BuiltPlugins.path($0)) },
                      probe: probe)
        }
        #expect(Set(report.loadedNames) == ["clock", "greeter"])
        #expect(try host.locator.tryService(key: SampleKeys.greeter).greet("x").contains("x"))
        guard case let .probeFailed(_, crash)? = report.error(for: "libFixtureCrash.so") else {
            Issue.record("no probe failure for the crashing plugin: \(report.problems)")
            return
        }
        #expect(crash.contains("signal 11"))
        guard case let .probeFailed(_, hang)? = report.error(for: "libFixtureHang.so") else {
            Issue.record("no probe failure for the hanging plugin: \(report.problems)")
            return
        }
        #expect(hang.contains("did not finish"))
    }

    /// An `atOne` async factory that crashes a moment after its module returned is caught by the
    /// probe: its verdict comes once every such factory of the plugin has finished. Before, the probe
    /// said "registered" and the plugin was loaded into the host.
    @Test func anAsyncAtOneFactoryThatCrashesLaterFailsTheProbe() async throws {
        let host = PluginHost()
        let probe = probe
        let report = await onAThreadOfItsOwn {
            host.load(["FixtureAsyncCrash", "ClockPlugin"].map { .file(BuiltPlugins.path($0)) }, probe: probe)
        }
        #expect(report.loadedNames == ["clock"])
        guard case let .probeFailed(_, reason)? = report.error(for: "libFixtureAsyncCrash.so") else {
            Issue.record("no probe failure for the plugin whose async factory crashes: \(report.problems)")
            return
        }
        #expect(reason.contains("signal 11"), "\(reason)")
    }

    /// `exit` in a plugin is not a verdict, whatever the status: before, status 0 passed the probe and
    /// status 3 (the clean-failure status) made the host load the plugin in process, which then ended
    /// the host.
    @Test(arguments: ["0", "3", "1"])
    func aPluginThatExitsWhileLoadingFailsTheProbe(status: String) async throws {
        var environment = misbehave
        environment["HOSTKIT_FIXTURE_EXIT_STATUS"] = status
        let probe = PluginProbe(executable: probe.executable, arguments: probe.arguments, timeout: probe.timeout,
                                environment: environment)
        let host = PluginHost()
        let report = await onAThreadOfItsOwn {
            host.load(["FixtureExit", "ClockPlugin"].map { .file(BuiltPlugins.path($0)) }, probe: probe)
        }
        #expect(report.loadedNames == ["clock"])
        guard case let .probeFailed(_, reason)? = report.error(for: "libFixtureExit.so") else {
            Issue.record("no probe failure for the exiting plugin: \(report.problems)")
            return
        }
        #expect(reason.contains("exited with status \(status) without a verdict"), "\(reason)")
    }

    /// The probe registers a plugin after the providers of its requirements, as the real load does:
    /// a plugin that crashes only beside its requirement is caught there (before, it passed a probe
    /// that registered it alone, and then crashed the host), and a correct plugin that counts on its
    /// requirement passes (before, it crashed the lone probe and was refused).
    @Test func theProbeRegistersAPluginAfterItsProviders() async throws {
        let host = PluginHost()
        let probe = probe
        let report = await onAThreadOfItsOwn {
            host.load(["FixtureCrashBesideClock", "FixtureNeedsClock", "GreeterPlugin", "ClockPlugin"]
                .map { .file(BuiltPlugins.path($0)) }, probe: probe)
        }
        #expect(Set(report.loadedNames) == ["clock", "greeter", "fixture-needs-clock"], "\(report.problems)")
        #expect(try host.locator.tryService(key: ServiceLocatorEasyKey<Int>(name: "fixture.hour-at-start")) >= 0)
        guard case let .probeFailed(_, reason)? = report.error(for: "libFixtureCrashBesideClock.so") else {
            Issue.record("no probe failure for the plugin that crashes beside the clock: \(report.problems)")
            return
        }
        #expect(reason.contains("signal 11"), "\(reason)")
        #expect(report.problems.count == 1, "\(report.problems)")
    }

    /// A requirement provided by a plugin of an earlier load: the probe registers that plugin first.
    @Test func theProbeRegistersProvidersOfEarlierLoadsToo() async throws {
        let host = PluginHost()
        let probe = probe
        let first = await onAThreadOfItsOwn { host.load([.file(BuiltPlugins.path("ClockPlugin"))], probe: probe) }
        #expect(first.loadedNames == ["clock"])
        let second = await onAThreadOfItsOwn {
            host.load(["FixtureNeedsClock", "FixtureCrashBesideClock"].map { .file(BuiltPlugins.path($0)) }, probe: probe)
        }
        #expect(second.loadedNames == ["fixture-needs-clock"], "\(second.problems)")
        guard case .probeFailed? = second.error(for: "libFixtureCrashBesideClock.so") else {
            Issue.record("no probe failure for the plugin that crashes beside the clock: \(second.problems)")
            return
        }
    }

    @Test func aPluginThatFailsCleanlyInTheProbeGetsItsOwnError() async throws {
        let probe = probe
        let report = await onAThreadOfItsOwn { PluginHost().load([.file(BuiltPlugins.path("FixtureWrongABI"))], probe: probe) }
        guard case .incompatibleLibraries? = report.problems.first else {
            Issue.record("expected the plugin's own error, got \(report.problems)")
            return
        }
    }

    @Test func aProbeThatCannotStartIsAnError() throws {
        let broken = PluginProbe(executable: "/nonexistent/host", arguments: [])
        let report = PluginHost().load([.file(BuiltPlugins.path("ClockPlugin"))], probe: broken)
        #expect(report.loaded.isEmpty)
        guard case .probeFailed? = report.problems.first else {
            Issue.record("expected probeFailed, got \(report.problems)")
            return
        }
    }

    @Test func aPluginCannotAddSlotsAfterStartUp() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("FixtureLateRegistration"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let attempts = try host.locator.tryService(key: ServiceLocatorEasyKey<[String]>(name: "fixture.late-attempts"))
        #expect(attempts.count == 1)
        #expect(attempts.first?.contains("after its registration had ended") == true, "\(attempts)")
        #expect(host.locator.slotInfo(forKey: "fixture.sneaky") == nil)
    }
}
