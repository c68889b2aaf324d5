import Foundation
import HostKit
@_spi(HostKit) import PluginAPI
import TestSupport
import Testing

extension ReloadTests {
    @Test func theOldVersionStopsOnlyOnceItsLastReaderIsDone() async throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        let host = plugins.host
        // A request that began before the upgrade holds the services it began with.
        var request: ServiceLocator? = host.locator
        try plugins.install("FixtureVersionTwo", as: versioned)
        // Started at once on a thread of its own: a task would wait for the pool, which other tests may hold.
        // The drain bound is not the point here (the reader is): 10 minutes, which a busy machine under
        // ThreadSanitizer does not reach (60 s ran out once before this test's thread got to the checks).
        let reloaded = StartedThread { host.reload(drainTimeout: .seconds(600)) }
        #expect(try await poll(atMost: .seconds(20)) { script.events.contains("start versioned 2") })
        try await Task.sleep(for: .milliseconds(300))
        #expect(!script.events.contains("shutdown versioned 1"))
        #expect(try request?.tryService(key: versionedUseKey) == "1")
        #expect(try host.locator.tryService(key: versionedKey) == "2")
        request = nil
        let report = await reloaded.value
        #expect(script.events.suffix(2) == ["use versioned 1", "shutdown versioned 1"])
        #expect(report.stopped.problems.isEmpty)
    }

    @Test func aReaderThatNeverLetsGoDelaysTheStopByTheDrainTimeoutOnly() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        let held = plugins.host.locator
        try plugins.install("FixtureVersionTwo", as: versioned)
        let report = plugins.host.reload(drainTimeout: .milliseconds(200))
        #expect(report.entries.map(\.action) == [.upgraded])
        #expect(script.events.last == "shutdown versioned 1")
        withExtendedLifetime(held) {}
    }

    /// Two threads get through the host's locator all along while it is upgraded 20 times. Each get
    /// of `fixture.versioned.use` runs the version's factory, which tells the control; the control
    /// counts each version's starts and shutdowns (versions alternate, so at most one instance of
    /// each is running): a get that reaches a version after its shutdown hook began is counted.
    @Test func getsDuringUpgradesAlwaysAnswerAndNeverReachAStoppedVersion() async throws {
        let counts = VersionCounts()
        let base = ServiceLocator()
        try base.addService(key: lifecycleControlKey, service: { event in counts.record(event) })
        let host = try PluginHost(base: base)
        let folder = try TemporaryFolder()
        try folder.install("FixtureVersionOne", as: versioned)
        #expect(host.load([.directory(folder.path)]).problems.isEmpty)
        let stop = Flag()
        // On threads of their own: two spinning tasks would take both threads of this machine's pool.
        let readers = (0..<2).map { _ in
            Task { await onAThreadOfItsOwn {
                var gets = 0, failures: [String] = []
                while !stop.isSet {
                    do {
                        let version = try host.locator.tryService(key: versionedUseKey)
                        if version != "1" && version != "2" { failures.append("answered \(version)") }
                    } catch {
                        failures.append("\(error)")
                    }
                    gets += 1
                }
                return (gets, failures)
            } }
        }
        var upgrades = 0
        for round in 1...20 {
            try folder.install(round % 2 == 1 ? "FixtureVersionTwo" : "FixtureVersionOne", as: versioned)
            let report = await onAThreadOfItsOwn { host.reload() }
            if report.entries.map(\.action) == [.upgraded] { upgrades += 1 } else { Issue.record("\(report.text)") }
        }
        stop.set()
        for reader in readers {
            let (gets, failures) = await reader.value
            #expect(gets > 0)
            #expect(failures.isEmpty, "\(failures.prefix(5))")
        }
        #expect(upgrades == 20)
        #expect(counts.violations.isEmpty, "\(counts.violations.prefix(5))")
    }

    /// A step whose later member fails to start is rolled back: the new instance that started is
    /// stopped, named as not swapped in, and the served versions serve on.
    @Test func aStepWhoseLaterMemberFailsToStartStopsTheNewInstancesThatStarted() throws {
        let failing = Flag()
        let events = LockedEvents()
        let base = ServiceLocator()
        try base.addService(key: lifecycleControlKey, service: { event in
            events.append(event)
            return failing.isSet && event == "start user" ? "throw" : "ok"
        })
        let host = try PluginHost(base: base)
        let folder = try TemporaryFolder()
        try folder.install("FixtureVersionOne", as: versioned)
        try folder.install("FixtureVersionUser", as: "libuser.so")
        #expect(host.load([.directory(folder.path)]).problems.isEmpty)
        failing.set()
        let before = host.locator
        try folder.install("FixtureVersionTwo", as: versioned)
        let report = host.reload()
        #expect(report.entries.map(\.action) == [.kept], "\(report.text)")
        #expect(report.stopped.entries.first?.summary == "stopped fixture-versioned (new instance, not swapped in)",
                "\(report.text)")
        #expect(host.locator === before)
        #expect(events.all.contains("shutdown versioned 2"), "\(events.all)")
        #expect(host.startedPlugins == ["fixture-versioned", "fixture-versioned-user"])
    }
}
