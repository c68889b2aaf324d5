import Foundation
import HostKit
@_spi(HostKit) import PluginAPI
import SampleContracts
import TestSupport
import Testing

/// The control the lifecycle fixtures (`FixtureLifecycleA/B/C`, see `LifecycleFixture.swift`) look
/// for in their host's locator: told each hook's event, it answers what the hook should do.
let lifecycleControlKey = ServiceLocatorEasyKey<@Sendable (String) -> String>(name: "fixture.lifecycle")

/// The lazy service of the fixture `letter` that lists the fixtures whose service the locator its
/// registrar lent it still serves (`a c`).
func reachKey(_ letter: String) -> ServiceLocatorEasyKey<String> {
    ServiceLocatorEasyKey(name: "fixture.lifecycle.\(letter).reach")
}

/// What the lifecycle fixtures of one host do, and what they did. Each test has its own, handed to
/// its host through the base locator, so tests running at the same time do not see each other.
final class LifecycleScript: @unchecked Sendable {
    // @unchecked: `log` is only touched under `lock` (an NSLock, so ThreadSanitizer sees it).
    private let lock = NSLock()
    private var log: [String] = []
    /// What a hook does, by event (`start b`): `throw`, `hang-async`, `hang-blocking`; else `ok`.
    private let behaviour: [String: String]

    init(_ behaviour: [String: String] = [:]) {
        self.behaviour = behaviour
    }

    /// The events so far, in the order the hooks reported them.
    var events: [String] { lock.withLock { log } }

    /// A host whose fixtures this script steers.
    func host(startTimeout: Duration = .seconds(30)) throws -> PluginHost {
        let base = ServiceLocator()
        try base.addService(key: lifecycleControlKey, service: { [self] event in
            lock.withLock { log.append(event) }
            return behaviour[event] ?? "ok"
        })
        return try PluginHost(base: base, startTimeout: startTimeout)
    }

    /// Waits (polling, at most `limit`) until `event` was reported; returns whether it was.
    func wait(for event: String, atMost limit: Duration = .seconds(20)) async throws -> Bool {
        try await poll(atMost: limit, every: .milliseconds(10)) { events.contains(event) }
    }
}

/// The lifecycle fixtures' files, `letters` such as "cba".
func lifecycleFixtures(_ letters: String) -> [PluginSource] {
    letters.map { .file(BuiltPlugins.path("FixtureLifecycle\($0.uppercased())")) }
}

/// Plugin start and shutdown hooks: order, failures, timeouts. The fixtures: B requires A, C requires B.
@Suite struct LifecycleTests {
    let a = "fixture-lifecycle-a", b = "fixture-lifecycle-b", c = "fixture-lifecycle-c"
    /// How long a hook the tests make hang may run: the point of those tests, and generous, as the
    /// hooks that do not hang must finish within it too, on a loaded machine under a sanitizer (1 s
    /// was too short for them with two builds beside the suite).
    let short: Duration = .seconds(10)

    @Test func pluginsStartInDependencyOrderWhateverTheOrderOfTheFiles() throws {
        let script = LifecycleScript()
        let host = try script.host()
        let report = host.load(lifecycleFixtures("cba"))
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(script.events == ["start a", "start b", "start c"])
        #expect(host.startedPlugins == [a, b, c])
        #expect(host.locator.isReadOnly)
    }

    /// `load(_:probe:start: false)` registers and publishes the plugins, runs no start hook, and the
    /// shutdown after it runs no hook either; a later load starts its own plugins as always.
    @Test func aLoadWithoutStartRunsNoHookAndItsShutdownNone() throws {
        let script = LifecycleScript()
        let host = try script.host()
        let report = host.load(lifecycleFixtures("ba"), start: false)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.loaded.count == 2)
        #expect(host.locator.getService(key: ServiceLocatorEasyKey<String>(name: "fixture.lifecycle.b")) == "b")
        #expect(host.startedPlugins.isEmpty)
        #expect(host.shutdown().entries.isEmpty)
        #expect(script.events.isEmpty, "\(script.events)")
        #expect(host.load(lifecycleFixtures("c")).problems.isEmpty)
        #expect(host.startedPlugins == [c])
        #expect(script.events == ["start c"])
    }

    @Test func shutdownRunsInReverseStartOrderAndReportsEachPlugin() throws {
        let script = LifecycleScript()
        let host = try script.host()
        host.load(lifecycleFixtures("bca"))
        let report = host.shutdown()
        #expect(script.events == ["start a", "start b", "start c", "shutdown c", "shutdown b", "shutdown a"])
        #expect(report.entries.map(\.plugin) == [c, b, a])
        #expect(report.entries.allSatisfy { $0.outcome.isFinished })
        #expect(report.problems.isEmpty)
        #expect(report.text == "stopped \(c)\nstopped \(b)\nstopped \(a)")
        #expect(host.startedPlugins.isEmpty)
        // The services stay: a shutdown is not an unload.
        #expect(host.locator.getService(key: ServiceLocatorEasyKey<String>(name: "fixture.lifecycle.c")) == "c")
    }

    @Test func aSecondShutdownHasNothingToDo() throws {
        let script = LifecycleScript()
        let host = try script.host()
        host.load(lifecycleFixtures("abc"))
        #expect(host.shutdown().entries.count == 3)
        let again = host.shutdown()
        #expect(again.entries.isEmpty)
        #expect(again.text.isEmpty)
        #expect(script.events.filter { $0.hasPrefix("shutdown") } == ["shutdown c", "shutdown b", "shutdown a"])
    }

    @Test func aThrowingStartDropsThePluginAndThePluginsThatRequireIt() throws {
        let script = LifecycleScript(["start b": "throw"])
        let host = try script.host()
        let report = host.load(lifecycleFixtures("abc"))
        #expect(report.loadedNames == [a])
        #expect(report.problems.count == 2)
        guard case let .startFailed(plugin, reason)? = report.error(for: b) else {
            Issue.record("expected startFailed for \(b), got \(report.problems)")
            return
        }
        #expect(plugin == b)
        #expect(reason == "failed: fixture refused to start b")
        #expect(report.error(for: b)?.description.contains("its services were removed") == true)
        guard case let .missingRequirement(dependent, key, why)? = report.error(for: c) else {
            Issue.record("expected missingRequirement for \(c), got \(report.problems)")
            return
        }
        #expect(dependent == c)
        #expect(key == "fixture.lifecycle.b")
        #expect(why.contains("'\(b)' failed to start"))
        // C's start never ran; the published locator holds A's slot only.
        #expect(script.events == ["start a", "start b"])
        #expect(host.startedPlugins == [a])
        let keys = host.locator.slots.map(\.key)
        #expect(keys.contains("fixture.lifecycle.a"))
        #expect(!keys.contains("fixture.lifecycle.b"))
        #expect(!keys.contains("fixture.lifecycle.c"))
        #expect(keys.contains(lifecycleControlKey.storeKey))
        // Not even through the locator A's registrar lent it, and which its factory kept, does
        // anything reach B's service any more.
        #expect(host.locator.getService(key: reachKey("a")) == "a")
        // Only a plugin that started is shut down.
        let shutdown = host.shutdown()
        #expect(shutdown.entries.map(\.plugin) == [a])
        #expect(script.events == ["start a", "start b", "shutdown a"])
    }

    /// A plugin dropped for its start is withdrawn before the next start hook runs, and the plugins
    /// that require it are dropped unstarted: D, which starts after B and does not require it, reaches
    /// only its own service from the resolver its start got (its grant); C's hook never runs.
    @Test func aDroppedPluginIsWithdrawnBeforeTheNextStartHook() throws {
        let script = LifecycleScript(["start b": "throw"])
        let host = try script.host()
        let report = host.load(lifecycleFixtures("abdc"))
        #expect(report.loadedNames == [a, "fixture-lifecycle-d"], "\(report.problems)")
        #expect(script.events.contains("reached at start: d"), "\(script.events)")
        #expect(!script.events.contains("start c"), "\(script.events)")
        #expect(host.locator.slotInfo(forKey: "fixture.lifecycle.b") == nil)
    }

    @Test(arguments: ["hang-async", "hang-blocking"])
    func aStartThatOutlastsTheTimeoutFailsAndTheRestLoads(_ hang: String) async throws {
        let script = LifecycleScript(["start c": hang])
        let host = try script.host(startTimeout: short)
        let clock = ContinuousClock()
        let begin = clock.now
        let report = host.load(lifecycleFixtures("abc"))
        let took = clock.now - begin
        #expect(took >= short)
        // Bounded, not hung: the slack is generous, a hang never ends.
        #expect(took < short + .seconds(60), "the load waited \(took) for a hook bounded by \(short)")
        #expect(report.loadedNames == [a, b])
        guard case let .startFailed(plugin, reason)? = report.error(for: c) else {
            Issue.record("expected startFailed for \(c), got \(report.problems)")
            return
        }
        #expect(plugin == c)
        #expect(reason == "did not finish within \(short)")
        #expect(host.startedPlugins == [a, b])
        #expect(host.locator.slotInfo(forKey: "fixture.lifecycle.c") == nil)
        #expect(host.locator.slotInfo(forKey: "fixture.lifecycle.b") != nil)
        if hang == "hang-async" {
            // The host cancelled the hook it stopped waiting for.
            #expect(try await script.wait(for: "cancelled start c"), "\(script.events)")
        }
        let shutdown = host.shutdown()
        #expect(shutdown.entries.map(\.plugin) == [b, a])
        #expect(!script.events.contains("shutdown c"))
    }

    @Test func aThrowingShutdownIsReportedAndTheOtherHooksStillRun() throws {
        let script = LifecycleScript(["shutdown b": "throw"])
        let host = try script.host()
        host.load(lifecycleFixtures("abc"))
        let report = host.shutdown()
        #expect(script.events.suffix(3) == ["shutdown c", "shutdown b", "shutdown a"])
        #expect(report.entries.map(\.plugin) == [c, b, a])
        #expect(report.problems.map(\.plugin) == [b])
        #expect(report.problems.first?.outcome.description == "failed: fixture refused to shutdown b")
        #expect(report.text == """
            stopped \(c)
            error: plugin '\(b)': shutdown failed: fixture refused to shutdown b
            stopped \(a)
            """)
        #expect(host.startedPlugins.isEmpty)
    }

    @Test(arguments: ["hang-async", "hang-blocking"])
    func aHangingShutdownTimesOutAndTheOtherHooksStillRun(_ hang: String) async throws {
        let script = LifecycleScript(["shutdown c": hang])
        let host = try script.host()
        host.load(lifecycleFixtures("abc"))
        let clock = ContinuousClock()
        let begin = clock.now
        let report = host.shutdown(timeout: short)
        let took = clock.now - begin
        #expect(took < short + .seconds(60), "the shutdown took \(took) with hooks bounded by \(short)")
        #expect(script.events.filter { $0.hasPrefix("shutdown") } == ["shutdown c", "shutdown b", "shutdown a"])
        #expect(report.entries.map(\.plugin) == [c, b, a])
        #expect(report.problems.map(\.plugin) == [c])
        let hung = try #require(report.entries.first)
        #expect(hung.outcome.description == "did not finish within \(short)")
        #expect(hung.duration >= short)
        #expect(report.text == """
            error: plugin '\(c)': shutdown did not finish within \(short)
            stopped \(b)
            stopped \(a)
            """)
        if hang == "hang-async" {
            #expect(try await script.wait(for: "cancelled shutdown c"), "\(script.events)")
        }
    }

    @Test func aSecondLoadStartsOnlyThePluginsItLoads() throws {
        let script = LifecycleScript()
        let host = try script.host()
        #expect(host.load(lifecycleFixtures("a")).problems.isEmpty)
        #expect(script.events == ["start a"])
        let second = host.load(lifecycleFixtures("cb"))
        #expect(second.problems.isEmpty, "\(second.problems)")
        #expect(script.events == ["start a", "start b", "start c"])
        #expect(host.startedPlugins == [a, b, c])
        host.shutdown()
        #expect(script.events.suffix(3) == ["shutdown c", "shutdown b", "shutdown a"])
    }

    /// What a plugin's registrar lends it reads the host's current services, and of those only the
    /// keys the plugin declared (PH-0031): A's lazy factory, first run after a later load, reaches its
    /// own service and not that load's B and D; B's reaches A, which it requires, loaded before it.
    @Test func whatARegistrarLentReadsTheDeclaredKeysOfTheHostsCurrentServices() throws {
        let script = LifecycleScript()
        let host = try script.host()
        #expect(host.load(lifecycleFixtures("a")).problems.isEmpty)
        #expect(host.load(lifecycleFixtures("bd")).problems.isEmpty)
        #expect(host.locator.getService(key: reachKey("a")) == "a")
        #expect(host.locator.getService(key: reachKey("b")) == "a b")
        #expect(host.locator.getService(key: reachKey("d")) == "d")
    }

    @Test func aLoadAfterAShutdownStartsOnlyItsOwnPlugins() throws {
        let script = LifecycleScript()
        let host = try script.host()
        host.load(lifecycleFixtures("a"))
        host.shutdown()
        // B's requirement is met by A's slot, still in the locator; A is not started again.
        #expect(host.load(lifecycleFixtures("b")).problems.isEmpty)
        #expect(host.startedPlugins == [b])
        #expect(host.shutdown().entries.map(\.plugin) == [b])
        #expect(script.events == ["start a", "shutdown a", "start b", "shutdown b"])
    }

    /// The control is a requirement like any other: without one, the fixtures are refused naming it.
    @Test func withoutTheControlTheyRequireTheFixturesAreRefusedNamingIt() throws {
        let host = PluginHost()
        let report = host.load(lifecycleFixtures("abc"))
        #expect(report.loadedNames.isEmpty)
        let problems = report.problems.map(\.description)
        #expect(problems.count == 3 && problems.allSatisfy { $0.contains("requires key 'fixture.lifecycle'") }, "\(problems)")
    }

    /// The sample notes plugin opens its journal in `start`; the host closes it (a `ClosableService`)
    /// after the plugin's shutdown hook.
    @Test func theNotesJournalIsOpenFromStartToShutdown() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("NotesPlugin"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let journal = try host.locator.tryService(key: SampleKeys.journal)
        #expect(journal.isOpen)
        #expect(journal.write("written by LifecycleTests"))
        let shutdown = host.shutdown()
        // The archive (async lazy) was never gotten: it is not made just to be closed.
        #expect(shutdown.text == "stopped notes\nclosed notes: sample.journal")
        #expect(shutdown.entries.map(\.service) == [nil, "sample.journal"])
        #expect(host.locator.existingService(forKey: SampleKeys.archive.storeKey) == nil)
        #expect(!journal.isOpen)
        #expect(!journal.write("after shutdown"))
        // Still the same journal in the locator, closed.
        #expect(try host.locator.tryService(key: SampleKeys.journal) === journal)
    }

    /// One closable instance registered under two keys is closed once ("called once, at shutdown").
    @Test func anInstanceUnderTwoKeysIsClosedOnce() throws {
        let script = LifecycleScript()
        let host = try script.host()
        let report = host.load([.file(BuiltPlugins.path("FixtureClosables"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let shutdown = host.shutdown()
        #expect(script.events.filter { $0 == "close shared" }.count == 1, "\(script.events)")
        // Keys are closed in reverse order: the second key's entry closes the instance.
        #expect(shutdown.entries.compactMap(\.service) == ["fixture.closable.two"])
    }

    /// A plugin dropped because its start failed has the closable services it made closed, once,
    /// at once: nothing else would ever close them.
    @Test func aPluginDroppedAtStartHasItsServicesClosed() throws {
        let script = LifecycleScript(["start closables": "throw"])
        let host = try script.host()
        let report = host.load([.file(BuiltPlugins.path("FixtureClosables"))])
        guard case .startFailed? = report.error(for: "fixture-closables") else {
            Issue.record("expected startFailed, got \(report.problems)")
            return
        }
        #expect(script.events == ["start closables", "close shared"])
        #expect(host.shutdown().entries.isEmpty)
        #expect(script.events == ["start closables", "close shared"])
    }

    /// A lazy closable that another plugin's shutdown hook makes only after its own plugin's services
    /// were closed is closed too, after every hook.
    @Test func aClosableMadeByALaterShutdownHookIsClosed() throws {
        let script = LifecycleScript()
        let host = try script.host()
        let report = host.load(["FixtureLateClosable", "FixtureLateMaker"].map { .file(BuiltPlugins.path($0)) })
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(host.startedPlugins == ["fixture-late-maker", "fixture-late-closable"])
        let shutdown = host.shutdown()
        #expect(script.events == ["close late"], "\(script.events)")
        #expect(shutdown.entries.compactMap(\.service) == ["fixture.late.closable"])
    }

    /// A closable service that was made is closed after its plugin's hook, in reverse key order.
    @Test func madeClosableServicesAreClosedAfterTheirPluginsHook() async throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("NotesPlugin"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        _ = try await host.locator.tryServiceAsync(key: SampleKeys.archive)
        let shutdown = await Task.detached { host.shutdown() }.value
        #expect(shutdown.entries.map(\.summary) == ["stopped notes", "closed notes: sample.archive",
                                                     "closed notes: sample.journal"])
        #expect(shutdown.problems.isEmpty)
    }
}
