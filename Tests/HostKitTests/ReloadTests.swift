import Foundation
import HostKit
@_spi(HostKit) import PluginAPI
import TestSupport
import Testing

/// Reloads: plugins added, upgraded and withdrawn in a running host, built for real (the fixtures
/// `FixtureVersionOne/Two/Three`: one plugin name and type name in three files; `FixtureVersionUser`
/// requires it).
@Suite struct ReloadTests {
    let versioned = "libversioned.so", user = "libuser.so"

    @Test func aFileRenamedOverAServedOneIsUpgradedAndTheOldVersionStoppedAfterTheNewStarted() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        let host = plugins.host
        #expect(try host.locator.tryService(key: versionedKey) == "1")
        _ = try host.locator.tryService(key: ServiceLocatorEasyKey<any ClosableService>(name: "fixture.versioned.closable"))
        let imagesBefore = host.reload().imagesMapped
        try plugins.install("FixtureVersionTwo", as: versioned)
        let report = host.reload()
        #expect(report.entries.map(\.summary) == ["upgraded fixture-versioned 1.0.0 -> 2.0.0 (\(plugins.folder.file(versioned)))"])
        #expect(!report.hasProblems, "\(report.text)")
        // (Other tests in this process map images too.)
        #expect(report.imagesMapped > imagesBefore)
        // The loader would hand back the image of the path it mapped: the new file is a new image.
        #expect(try host.locator.tryService(key: versionedKey) == "2")
        #expect(script.events == ["start versioned 1", "start versioned 2", "shutdown versioned 1", "close versioned 1"])
        #expect(report.stopped.entries.map(\.summary) == ["stopped fixture-versioned (old instance, replaced)",
                                                           "closed fixture-versioned (old instance, replaced): fixture.versioned.closable"])
        // The name stays the plugin's: what metrics and logs group by.
        #expect(report.stopped.entries.map(\.plugin) == ["fixture-versioned", "fixture-versioned"])
        #expect(host.startedPlugins == ["fixture-versioned"])
        // Back to the first version: a second image of the same module, apart from the first.
        try plugins.install("FixtureVersionOne", as: versioned)
        #expect(host.reload().entries.map(\.action) == [.upgraded])
        #expect(try host.locator.tryService(key: versionedKey) == "1")
        #expect(script.events.suffix(2) == ["start versioned 1", "shutdown versioned 2"])
    }

    @Test func aReloadWithNothingChangedChangesNothingAndOpensNothing() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne", user: "FixtureVersionUser"], script: script)
        let before = plugins.host.locator
        let report = plugins.host.reload()
        #expect(report.entries.isEmpty, "\(report.text)")
        #expect(report.unchanged == 2)
        #expect(plugins.host.locator === before)
        #expect(script.events == ["start versioned 1", "start user"])
    }

    @Test func thePluginsThatRequireAnUpgradedOneAreRestartedWithIt() async throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne", user: "FixtureVersionUser"], script: script)
        let host = plugins.host
        #expect(try host.locator.tryService(key: versionedUserKey) == "user of 1")
        try plugins.install("FixtureVersionTwo", as: versioned)
        // The user's factory captured its registrar: that kept no locator alive for the drain to wait on.
        // One kept alive would hold the reload for its whole drain timeout, an hour; the wait gives up
        // long before that (a hang bound), and a shutdown then ends the drain.
        let reloading = StartedThread { host.reload(drainTimeout: .seconds(3600)) }
        guard let report = await reloading.value(within: .seconds(300)) else {
            Issue.record("the reload waited for its drain: a locator of the old version was kept alive")
            _ = await onAThreadOfItsOwn { host.shutdown() }
            return
        }
        #expect(report.entries.map(\.action) == [.upgraded, .restarted], "\(report.text)")
        // The singleton made from version 1 went with the old instance of the user plugin.
        #expect(try host.locator.tryService(key: versionedUserKey) == "user of 2")
        #expect(try host.locator.tryService(key: versionedUserNowKey) == "user of 2")
        #expect(script.events == ["start versioned 1", "start user", "start versioned 2", "start user",
                                  "shutdown user", "shutdown versioned 1"])
        #expect(host.startedPlugins == ["fixture-versioned", "fixture-versioned-user"])
        // The restarted user serves the same pool (a static of its image): the old instance's stop
        // did not close what the new one serves.
        #expect(try host.locator.tryService(key: ServiceLocatorEasyKey<String>(name: "fixture.versioned.user.pool.state")) == "open")
        #expect(host.shutdown().entries.map(\.summary).prefix(2) == ["stopped fixture-versioned-user", "closed fixture-versioned-user: fixture.versioned.user.pool"])
        #expect(try host.locator.tryService(key: ServiceLocatorEasyKey<String>(name: "fixture.versioned.user.pool.state")) == "closed")
    }

    @Test func aNewVersionThatFailsToStartLeavesTheOldOneServing() throws {
        let script = LifecycleScript(["start versioned 2": "throw"])
        let plugins = try PluginFolder([versioned: "FixtureVersionOne", user: "FixtureVersionUser"], script: script)
        let before = plugins.host.locator
        try plugins.install("FixtureVersionTwo", as: versioned)
        let report = plugins.host.reload()
        #expect(report.entries.map(\.action) == [.kept])
        guard case .startFailed("fixture-versioned", _)? = report.entries.first?.error else {
            Issue.record("not a start failure: \(report.text)")
            return
        }
        let line = try #require(report.entries.first?.summary)
        #expect(line.hasPrefix("kept fixture-versioned 1.0.0 ("), "\(line)")
        // Its services serve on: the line says the new instance failed, not that services were removed.
        #expect(line.contains("): plugin 'fixture-versioned': the new instance's start failed: ")
                && line.hasSuffix(", so it was not swapped in"), "\(line)")
        #expect(!line.contains("removed"), "\(line)")
        // The new version's start came first and failed: nothing of the step had started to stop again.
        #expect(report.stopped.entries.isEmpty)
        #expect(plugins.host.locator === before)
        #expect(try plugins.host.locator.tryService(key: versionedUserNowKey) == "user of 1")
        #expect(!script.events.contains("shutdown versioned 1") && !script.events.contains("shutdown user"))
        #expect(plugins.host.startedPlugins == ["fixture-versioned", "fixture-versioned-user"])
    }

    /// The provider's file sorts first: its step meets the user plugin's new version, not the old one.
    @Test func aProviderAndAPluginThatRequiresItUpgradeTogetherWhateverTheOrderOfTheirFiles() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder(["liba.so": "FixtureVersionOne", "libz.so": "FixtureVersionUser"], script: script)
        try plugins.install("FixtureVersionThree", as: "liba.so")
        try plugins.install("FixtureVersionUserTwo", as: "libz.so")
        let report = plugins.host.reload()
        #expect(report.entries.map(\.summary) == [
            "upgraded fixture-versioned 1.0.0 -> 3.0.0 (\(plugins.folder.file("liba.so"))); grants -fixture.lifecycle",
            "upgraded fixture-versioned-user 1.0.0 -> 2.0.0 (\(plugins.folder.file("libz.so"))); grants -fixture.lifecycle "
                + "-fixture.versioned",
        ], "\(report.text)")
        #expect(try plugins.host.locator.tryService(key: versionedUserKey) == "user two")
        #expect(plugins.host.locator.getService(key: versionedKey) == nil)
        #expect(script.events == ["start versioned 1", "start user", "shutdown user", "shutdown versioned 1"])
    }

    /// A new provider and the new version of a plugin that now requires it, deployed together, go in
    /// one step, the provider first: a fresh load of the same files loads both too.
    @Test func aNewProviderAndTheNewVersionOfAPluginThatNowRequiresItGoInTogether() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne", user: "FixtureVersionUser"], script: script)
        try plugins.install("FixtureProvider", as: "libprovider.so")
        try plugins.install("FixtureVersionUserThree", as: user)
        let report = plugins.host.reload()
        #expect(report.entries.map(\.summary) == [
            "added fixture-provider 1.0.0 (\(plugins.folder.file("libprovider.so")))",
            "upgraded fixture-versioned-user 1.0.0 -> 3.0.0 (\(plugins.folder.file(user))); grants +fixture.provider "
                + "-fixture.lifecycle -fixture.versioned",
        ], "\(report.text)")
        #expect(try plugins.host.locator.tryService(key: versionedUserKey) == "user of provider 1")
        #expect(try plugins.host.locator.tryService(key: versionedKey) == "1")
        #expect(report.unchanged == 1)
        #expect(try LifecycleScript().host().load([.directory(plugins.folder.path)], start: false).loadedNames.sorted()
                == ["fixture-provider", "fixture-versioned", "fixture-versioned-user"])
    }

    /// Whether a plugin whose file is gone is still required is judged by the versions served after
    /// the reload: its only user's new version no longer requires it.
    @Test func aProviderRemovedWhileItsUserDropsTheRequirementIsWithdrawn() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder(["libprovider.so": "FixtureProvider", user: "FixtureVersionUserThree"], script: script)
        try plugins.remove("libprovider.so")
        try plugins.install("FixtureVersionUserTwo", as: user)
        let report = plugins.host.reload()
        #expect(report.entries.map(\.summary) == [
            "upgraded fixture-versioned-user 3.0.0 -> 2.0.0 (\(plugins.folder.file(user))); grants -fixture.provider",
            "withdrawn fixture-provider 1.0.0 (\(plugins.folder.file("libprovider.so")))",
        ], "\(report.text)")
        #expect(try plugins.host.locator.tryService(key: versionedUserKey) == "user two")
        #expect(plugins.host.locator.getService(key: ServiceLocatorEasyKey<String>(name: "fixture.provider")) == nil)
    }

    /// A plugin whose file is gone, required only by the version its user is replaced with, waits for
    /// that step: when the new version fails to start, the old one serves on, and so does the plugin.
    @Test func aProviderWhoseUsersNewVersionFailsToStartIsKept() throws {
        let script = LifecycleScript(["start user": "throw"])
        let plugins = try PluginFolder([versioned: "FixtureVersionOne", user: "FixtureVersionUserThree",
                                        "libprovider.so": "FixtureProvider"], script: script)
        try plugins.remove("libprovider.so")
        try plugins.install("FixtureVersionUser", as: user)
        let report = plugins.host.reload()
        #expect(report.entries.map(\.action) == [.kept, .kept], "\(report.text)")
        guard case .startFailed("fixture-versioned-user", _)? = report.entries.first?.error else {
            Issue.record("not kept for its start: \(report.text)")
            return
        }
        #expect(report.entries.last?.error == .stillRequired(plugin: "fixture-provider", requiredBy: ["fixture-versioned-user"]))
        #expect(try plugins.host.locator.tryService(key: versionedUserKey) == "user of provider 1")
    }

    @Test func aNewVersionWithoutAKeyAnotherPluginRequiresIsRefused() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne", user: "FixtureVersionUser"], script: script)
        try plugins.install("FixtureVersionThree", as: versioned)
        let report = plugins.host.reload()
        #expect(report.entries.map(\.action) == [.kept])
        #expect(report.entries.first?.error == .missingRequirement(
            plugin: "fixture-versioned-user", key: "fixture.versioned", reason: "which fixture-versioned 3.0.0 no longer provides"))
        #expect(try plugins.host.locator.tryService(key: versionedKey) == "1")
        #expect(script.events == ["start versioned 1", "start user"])
    }

    @Test func aNewVersionThatClaimsAnotherPluginsKeyOrRequiresItsOwnDependentIsRefused() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne", user: "FixtureVersionUser"], script: script)
        let before = plugins.host.locator
        try plugins.install("FixtureVersionFive", as: versioned)
        let hijack = plugins.host.reload()
        #expect(hijack.entries.first?.error == .keyConflict(key: "fixture.versioned.user", plugin: "fixture-versioned",
                                                            providedBy: "fixture-versioned-user"), "\(hijack.text)")
        try plugins.install("FixtureVersionFour", as: versioned)
        let cycle = plugins.host.reload()
        #expect(cycle.entries.first?.error == .requirementCycle(
            plugin: "fixture-versioned", chain: ["fixture-versioned", "fixture-versioned-user", "fixture-versioned"]), "\(cycle.text)")
        #expect(plugins.host.locator === before)
        #expect(try plugins.host.locator.tryService(key: versionedUserKey) == "user of 1")
        #expect(script.events == ["start versioned 1", "start user"])
    }

    @Test func aShutdownWhileAnUpgradeWaitsForReadersEndsTheWait() async throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        let host = plugins.host
        var held: ServiceLocator? = host.locator
        try plugins.install("FixtureVersionTwo", as: versioned)
        // Started at once on a thread of its own: a task would wait for the pool, which other tests may hold.
        // The drain would hold the reload for an hour, were it not for the shutdown: the wait for the
        // reload gives up long before that (a hang bound), and lets the reader go then.
        let reloaded = StartedThread { host.reload(drainTimeout: .seconds(3600)) }
        #expect(try await poll(atMost: .seconds(20)) { script.events.contains("start versioned 2") })
        let shutdown = StartedThread { host.shutdown() }
        let finished = await reloaded.value(within: .seconds(300))
        #expect(finished != nil, "the shutdown did not end the reload's wait for the readers of the old version")
        // The reader goes only now: a reload still waiting for it ends.
        withExtendedLifetime(held) {}
        held = nil
        let report = await reloaded.value
        #expect(report.entries.map(\.action) == [.upgraded])
        // The old version stopped at once, and the shutdown then stopped the new one.
        #expect(script.events.suffix(2) == ["shutdown versioned 1", "shutdown versioned 2"])
        #expect(await shutdown.value.entries.map(\.plugin).first == "fixture-versioned")
    }

    @Test func aReloadAfterAShutdownDoesNothing() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        plugins.host.shutdown()
        try plugins.install("FixtureVersionTwo", as: versioned)
        try plugins.install("FixtureVersionUser", as: user)
        let report = plugins.host.reload()
        #expect(report.afterShutdown && report.entries.isEmpty && report.hasProblems)
        #expect(report.text == "not reloaded: the host was shut down")
        #expect(script.events == ["start versioned 1", "shutdown versioned 1"])
        #expect(plugins.host.startedPlugins.isEmpty)
        // A load opens the host again: then a reload works.
        plugins.host.load([])
        #expect(plugins.host.reload().entries.map(\.action) == [.upgraded, .added])
    }

    @Test func aHostileNewVersionLeavesTheOldOneServing() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        try plugins.install("FixtureBadMagic", as: versioned)
        let report = plugins.host.reload()
        #expect(report.entries.map(\.action) == [.kept])
        guard case .badMagic? = report.entries.first?.error else {
            Issue.record("not refused for its magic: \(report.text)")
            return
        }
        #expect(try plugins.host.locator.tryService(key: versionedKey) == "1")
        #expect(script.events == ["start versioned 1"])
        // Asked again, the same file gives the same answer (remembered: a file is opened once).
        let again = plugins.host.reload()
        #expect(again.entries.map(\.action) == [.kept])
        #expect(again.entries.first?.error == report.entries.first?.error)
    }

    @Test func aNewVersionThatCrashesItsProbeLeavesTheOldOneServing() async throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        try plugins.install("FixtureCrash", as: versioned)
        let probe = PluginProbe(executable: "\(BuiltPlugins.directory)/host", arguments: ["__probe"],
                                timeout: .seconds(30), environment: misbehave)
        let host = plugins.host
        let report = await onAThreadOfItsOwn { host.reload(probe: probe) }
        #expect(report.entries.map(\.action) == [.kept])
        guard case let .probeFailed(_, reason)? = report.entries.first?.error else {
            Issue.record("not refused by the probe: \(report.text)")
            return
        }
        #expect(reason.contains("signal 11"))
        #expect(try host.locator.tryService(key: versionedKey) == "1")
    }

    @Test func aNewFileIsAddedAndAGoneOneWithdrawnUnlessOthersStillRequireIt() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        let host = plugins.host
        try plugins.install("FixtureVersionUser", as: user)
        let added = host.reload()
        #expect(added.entries.map(\.summary) == ["added fixture-versioned-user 1.0.0 (\(plugins.folder.file(user)))"])
        #expect(try host.locator.tryService(key: versionedUserKey) == "user of 1")
        try plugins.remove(versioned)
        let kept = host.reload()
        #expect(kept.entries.first?.error == .stillRequired(plugin: "fixture-versioned", requiredBy: ["fixture-versioned-user"]))
        #expect(try host.locator.tryService(key: versionedKey) == "1")
        try plugins.remove(user)
        let withdrawn = host.reload()
        #expect(withdrawn.entries.map(\.action) == [.withdrawn, .withdrawn])
        #expect(withdrawn.entries.map(\.plugin) == ["fixture-versioned-user", "fixture-versioned"])
        #expect(host.locator.getService(key: versionedKey) == nil)
        #expect(host.locator.getService(key: versionedUserKey) == nil)
        #expect(host.startedPlugins.isEmpty)
        #expect(script.events.suffix(2) == ["shutdown user", "shutdown versioned 1"])
    }

    @Test(arguments: ["", "/"])
    func aFolderThatBecameUntrustedKeepsItsPluginsServing(ending: String) throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script) { .directory($0.path + ending) }
        #expect(chmod(plugins.folder.path, 0o777) == 0)
        defer { chmod(plugins.folder.path, 0o755) }
        let report = plugins.host.reload()
        #expect(report.entries.map(\.action) == [.kept], "\(report.text)")
        guard case .untrusted? = report.entries.first?.error else {
            Issue.record("not kept for the folder's trust: \(report.text)")
            return
        }
        #expect(try plugins.host.locator.tryService(key: versionedKey) == "1")
        #expect(script.events == ["start versioned 1"])
    }

    @Test func aServedFileMovedToAnotherNameIsTheSamePluginAndCanBeUpgradedThere() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        try plugins.move(versioned, to: "libversioned-1.so")
        // The loader answers the new name with the image it has (same file): the same plugin, moved.
        let moved = plugins.host.reload()
        #expect(moved.entries.isEmpty, "\(moved.text)")
        #expect(moved.unchanged == 1)
        #expect(try plugins.host.locator.tryService(key: versionedKey) == "1")
        try plugins.install("FixtureVersionTwo", as: "libversioned-1.so")
        let upgrade = plugins.host.reload()
        #expect(upgrade.entries.map(\.action) == [.upgraded], "\(upgrade.text)")
        #expect(try plugins.host.locator.tryService(key: versionedKey) == "2")
        #expect(script.events == ["start versioned 1", "start versioned 2", "shutdown versioned 1"])
    }

    @Test func aPluginGivenAsAFileIsWithdrawnWhenTheFileIsGone() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script) { .file($0.file("libversioned.so")) }
        try plugins.remove(versioned)
        let report = plugins.host.reload()
        #expect(report.entries.map(\.action) == [.withdrawn], "\(report.text)")
        #expect(plugins.host.locator.getService(key: versionedKey) == nil)
    }

    @Test func aNewFileRefusedBeforeItsNameIsReadKeepsThePluginWhoseFileWentInItsFolder() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        try plugins.remove(versioned)
        try plugins.install("FixtureBadMagic", as: "libversioned-2.so")
        let report = plugins.host.reload()
        #expect(report.entries.map(\.action) == [.refused, .kept], "\(report.text)")
        guard case .badMagic? = report.entries.last?.error else {
            Issue.record("not kept for the new file's refusal: \(report.text)")
            return
        }
        #expect(try plugins.host.locator.tryService(key: versionedKey) == "1")
        // Refused before already, the file no longer holds the plugin back.
        #expect(plugins.host.reload().entries.map(\.action) == [.refused, .withdrawn])
    }

    @Test func twoFilesOfOnePluginKeepTheServedOne() throws {
        let script = LifecycleScript()
        let plugins = try PluginFolder([versioned: "FixtureVersionOne"], script: script)
        try plugins.install("FixtureVersionTwo", as: "libversioned-2.so")
        let report = plugins.host.reload()
        #expect(report.entries.map(\.action) == [.kept])
        #expect(report.entries.first?.error == .duplicatePlugin(name: "fixture-versioned", path: plugins.folder.file("libversioned-2.so"),
                                                                 loadedFrom: plugins.folder.file(versioned)))
        // With the old file gone, the new name is the plugin's next version.
        try plugins.remove(versioned)
        let upgrade = plugins.host.reload()
        #expect(upgrade.entries.map(\.action) == [.upgraded], "\(upgrade.text)")
        #expect(try plugins.host.locator.tryService(key: versionedKey) == "2")
    }
}
