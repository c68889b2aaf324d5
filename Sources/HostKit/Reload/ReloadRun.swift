internal import DynamicLoading
import Glibc
@_spi(HostKit) import PluginAPI

/// One reload of a host (``PluginHost/reload(probe:drainTimeout:hookTimeout:)``), run while the host
/// holds its load lock: the files that changed opened (``LoadPipeline``), planned (``ReloadPlan``),
/// and swapped in step by step (``ReloadStep``), each all or nothing, the versions they replace
/// stopped once no one reads them; and a plugin whose process was withdrawn, withdrawn with its
/// dependants (`ReloadRun+ProcessWithdrawal.swift`). What it reads and changes of the host is
/// ``ReloadingHost``.
struct ReloadRun {
    /// How long a reload waits for readers of an old version, and for each hook.
    struct Limits {
        let drain: Duration
        let hook: Duration
    }

    /// The host reloaded.
    let host: any ReloadingHost
    let limits: Limits

    /// A reload of `sources`, whose plugins `published` the host serves now, with `pipeline`: what
    /// ``PluginHost/reload(probe:drainTimeout:hookTimeout:)`` does, holding the host's load lock.
    func run(_ sources: [PluginSource], published: [LoadedPlugin], with pipeline: LoadPipeline) -> ReloadReport {
        let (candidates, problems) = pipeline.discover(sources)
        let changes = pipeline.openChanges(candidates, served: published)
        let opened = changes.opened
        let plan = plan(published: published, unchanged: changes.unchanged, opened: opened.plugins,
                        refused: changes.refused, problems: problems)
        if !plan.moved.isEmpty { host.replacePublished(plan.moved) }
        var report = ReloadReport()
        report.entries = plan.decided
        if !plan.withdrawnFirst.isEmpty {
            withdraw(plan.withdrawnFirst, into: &report)
        }
        let position = Dictionary(plan.order.enumerated().map { ($1.metadata.name, $0) }) { first, _ in first }
        for step in plan.steps where step.upgrades {
            apply(step, position: position, with: pipeline, registeredInProbe: opened.registeredInProbe,
                  into: &report)
        }
        // Before the additions: a new plugin that requires one started again here starts on the new instance.
        move(position: position, with: pipeline, registeredInProbe: opened.registeredInProbe,
             leaving: Set(plan.withdrawnLast.map(\.metadata.name)), into: &report)
        reconfigure(position: position, with: pipeline, registeredInProbe: opened.registeredInProbe,
                    leaving: Set(plan.withdrawnLast.map(\.metadata.name)), into: &report)
        // New plugins that need no new version: planned together, as a first load's are.
        let additions = plan.steps.filter { !$0.upgrades }.flatMap(\.changes).map(\.new)
        if !additions.isEmpty {
            let added = pipeline.stage(ReloadStep.inOrder(additions.map { (nil, $0) }, position: position).map(\.new),
                                       onto: host.locator, after: host.publishedPlugins,
                                       registeredInProbe: opened.registeredInProbe, as: .planned)
            if case let .success(publication) = added.result { host.publish(publication, replacing: []) }
            for plugin in additions {
                let error = added.outcome[plugin.path]?.error
                report.entries.append(ReloadReport.Entry(error == nil ? .added : .refused, plugin, error: error))
            }
        }
        if !plan.withdrawnLast.isEmpty {
            withdrawUnlessRequired(plan.withdrawnLast, into: &report)
        }
        let touched = Set(report.entries.map(\.plugin))
        report.unchanged = published.count { !touched.contains($0.metadata.name) }
        report.imagesMapped = PluginLoader.imageCount
        return report
    }

    /// Each plugin served on, its file unchanged, that read a setting whose value is another now (or
    /// cannot be read now): registered and started again from its file with its settings read anew,
    /// as an upgrade is (a step of its own: the plugins that require it are restarted with it; all or
    /// nothing: if the new instance fails, the old one serves on, `kept` with why). Reported
    /// `reconfigured`, naming the keys, never their values. After the upgrades (a plugin they restarted
    /// read its settings anew) and before the additions (a new plugin that requires one of these starts
    /// once, on the new instance). In publication order: a plugin restarted with one before it reads its
    /// settings anew there, and is not restarted twice. Those `leaving` (their files gone) are left to
    /// their withdrawal.
    private func reconfigure(position: [String: Int], with pipeline: LoadPipeline, registeredInProbe: Set<String>,
                             leaving: Set<String>, into report: inout ReloadReport) {
        let names = host.publishedPlugins.map(\.metadata.name)
        let settled = Set(report.entries.filter { $0.action != .kept }.map(\.plugin)).union(leaving)
        for name in names where !settled.contains(name) {
            let served = host.servedPlugin(named: name)
            // The source is asked outside the host's lock, which every reader of `locator` takes.
            guard let (plugin, settings) = served, let changed = settings?.changedKeys, !changed.isEmpty else { continue }
            switch pipeline.reopened(plugin) {
            case let .success(again):
                var probed = registeredInProbe
                if again.servedBy != nil { probed.insert(again.path) }
                apply(ReloadStep(changes: [(old: plugin, new: again)]), position: position, with: pipeline,
                      registeredInProbe: probed, into: &report, reconfigured: [name: changed])
            case let .failure(error):
                report.entries.append(ReloadReport.Entry(.kept, plugin, error: error))
            }
        }
    }

    /// Each plugin served on, its file unchanged, that the operator placed elsewhere since (a settings
    /// file's `placement`, read as this reload began): opened anew in its new place (``LoadPipeline/moved(_:)``)
    /// and swapped in as an upgrade is, in a step of its own with the plugins that require it, all or
    /// nothing (if the new instance fails, the old one serves on, `kept` with why: a plugin whose
    /// contract is not distributed cannot leave the host's process). Reported `moved`. Before the
    /// reconfigurations: a moved plugin reads its settings anew in its new place. Those `leaving`
    /// (their files gone) are left to their withdrawal.
    private func move(position: [String: Int], with pipeline: LoadPipeline, registeredInProbe: Set<String>,
                      leaving: Set<String>, into report: inout ReloadReport) {
        for name in host.publishedPlugins.map(\.metadata.name) where !leaving.contains(name) {
            // A plugin the reload has reported already (upgraded, restarted, kept: also by a move before
            // this one, as a dependant) is where that left it. Each looked up again for that reason.
            guard !report.entries.contains(where: { $0.plugin == name }),
                  let plugin = host.publishedPlugins.first(where: { $0.metadata.name == name }),
                  let moved = pipeline.moved(plugin) else { continue }
            switch moved {
            case let .success((again, probed)):
                var registered = registeredInProbe
                if probed { registered.insert(again.path) }
                apply(ReloadStep(changes: [(old: plugin, new: again)]), position: position, with: pipeline,
                      registeredInProbe: registered, into: &report, moving: [name])
            case let .failure(error):
                report.entries.append(ReloadReport.Entry(.kept, plugin, error: error))
            }
        }
    }

    /// The ``ReloadPlan`` of these files, planned beside the host's own services (the keys of its base
    /// locator, which no plugin provides). The locator read for them is let go on return: a reference
    /// kept for the whole reload would hold back the stop of every version it replaces.
    private func plan(published: [LoadedPlugin], unchanged: Set<String>, opened: [LoadedPlugin],
                      refused: [(path: String, error: PluginLoadError, isNew: Bool)], problems: [PluginLoadError]) -> ReloadPlan {
        let current = host.locator
        let pluginKeys = Set(published.flatMap(\.metadata.providedStoreKeys))
        return ReloadPlan(published: published, unchanged: unchanged, opened: opened, refused: refused, problems: problems) { key in
            pluginKeys.contains(key) ? nil : current.slotInfo(forKey: key).map { $0.origin ?? "host" }
        }
    }

    /// Withdraws `plugins` (in publication order) but those that a plugin served now requires (a step
    /// that would have replaced it with a version that does not was refused): kept, named in the report.
    private func withdrawUnlessRequired(_ plugins: [LoadedPlugin], into report: inout ReloadReport) {
        let published = host.publishedPlugins
        var leaving = plugins
        while let index = leaving.indices.first(where: { !ReloadPlan.users(of: leaving[$0], among: published, leaving: leaving).isEmpty }) {
            let plugin = leaving.remove(at: index)
            let users = ReloadPlan.users(of: plugin, among: published, leaving: leaving + [plugin])
            report.entries.append(ReloadReport.Entry(.kept, plugin, error: .stillRequired(plugin: plugin.metadata.name, requiredBy: users)))
        }
        if !leaving.isEmpty { withdraw(leaving, into: &report) }
    }

    /// Removes the services of `plugins` (in publication order) in one swap, then stops them; each
    /// reported withdrawn, with `why` it was, if there is more to say than that its file is gone.
    func withdraw(_ plugins: [LoadedPlugin], into report: inout ReloadReport,
                  why: (LoadedPlugin) -> PluginLoadError? = { _ in nil }) {
        let names = Set(plugins.map(\.metadata.name))
        let next: ServiceLocator
        do {
            next = try host.locator.clone()
        } catch {
            report.entries += plugins.map {
                ReloadReport.Entry(.kept, $0, error: .registrationFailed(plugin: $0.metadata.name, reason: "the host's locator: \(error)"))
            }
            return
        }
        next.withdraw(plugins.flatMap(\.metadata.providedStoreKeys))
        next.setReadOnly(denyClone: false)
        let publication = LoadPipeline.Publication(locator: next, source: ServiceSource(next), registered: [], started: [])
        var (previous, retiring): (ServiceLocator?, [StartedPlugin]) = host.publish(publication, replacing: names)
        report.entries += plugins.reversed().map { ReloadReport.Entry(.withdrawn, $0, error: why($0)) }
        report.stopped.entries += retire(retiring, replaced: &previous).entries
        retiring = []
    }

    /// One step (``ReloadStep``): its new versions and new plugins, with the plugins that require a
    /// version it replaces registered again from their own files (restarted), all in `position`'s
    /// order (the result's: providers first); all or nothing. A failure leaves every served version
    /// of the step serving (`kept`) and its new plugins out (`refused`), and stops what it started.
    /// A plugin of `reconfigured` is one served on whose settings changed (those keys): it is
    /// reported `reconfigured`, not `upgraded`; one of `moving` (opened anew elsewhere), `moved`, as is
    /// a plugin restarted with the step that the operator placed elsewhere since (one that cannot move
    /// is restarted where it is, and its move `kept` with why). Any entry whose instance runs in
    /// another place than the one it replaces says so (``ReloadReport/Entry/movedTo``).
    private func apply(_ step: ReloadStep, position: [String: Int], with pipeline: LoadPipeline,
                       registeredInProbe: Set<String>, into report: inout ReloadReport,
                       reconfigured: [String: [String]] = [:], moving: Set<String> = []) {
        let published = host.publishedPlugins
        let changing = Set(step.changes.map(\.new.metadata.name))
        let restarted = ReloadStep.dependents(of: step.changes.compactMap(\.old), among: published)
            .filter { !changing.contains($0.metadata.name) }
        // A plugin of a process of its own is restarted in a new one (its process starts it once); one
        // the operator placed elsewhere since is restarted there (`moved`), not moved again later.
        var reopened: [ReloadTarget.Change] = []
        var registeredInProbe = registeredInProbe, moving = moving
        var unmoved: [(plugin: LoadedPlugin, error: PluginLoadError)] = []
        for plugin in restarted {
            let again: Result<LoadedPlugin, PluginLoadError>
            switch pipeline.moved(plugin) {
            case let .success((new, probed))?:
                if probed { registeredInProbe.insert(new.path) }
                moving.insert(plugin.metadata.name)
                again = .success(new)
            case let .failure(error)?:
                // It cannot move (a plain contract, say): it does not hold back the step it is restarted with.
                unmoved.append((plugin, error))
                again = pipeline.reopened(plugin)
            case nil:
                again = pipeline.reopened(plugin)
            }
            switch again {
            case let .success(again): reopened.append((old: plugin, new: again))
            case let .failure(error):
                report.entries += Self.refused(step, error)
                return
            }
        }
        let members = ReloadStep.inOrder(step.changes + reopened, position: position)
        let replaced = Set(members.compactMap { $0.old?.metadata.name })
        // The replaced versions' keys go; the new ones may take them and free ones, nothing else.
        let staged = pipeline.stage(members.map(\.new), onto: host.locator,
                                    after: published.filter { !replaced.contains($0.metadata.name) },
                                    registeredInProbe: registeredInProbe,
                                    as: .allOrNothing(withdrawing: members.compactMap(\.old).flatMap(\.metadata.providedStoreKeys)))
        let publication: LoadPipeline.Publication
        switch staged.result {
        case let .success(staged): publication = staged
        case let .failure(failure):
            report.stopped.entries += rollBack(failure)
            report.entries += Self.refused(step, failure.error)
            return
        }
        var (previous, retiring): (ServiceLocator?, [StartedPlugin]) = host.publish(publication, replacing: replaced)
        let restartedNames = Set(restarted.map(\.metadata.name))
        for (old, new) in members {
            guard let old else {
                report.entries.append(ReloadReport.Entry(.added, new))
                continue
            }
            var entry: ReloadReport.Entry
            if moving.contains(old.metadata.name) {
                entry = ReloadReport.Entry(.moved, new)
            } else if let keys = reconfigured[old.metadata.name] {
                entry = ReloadReport.Entry(.reconfigured, new)
                entry.settingsChanged = keys
            } else {
                entry = restartedNames.contains(old.metadata.name)
                    ? ReloadReport.Entry(.restarted, new) : ReloadReport.Entry(.upgraded, new, previous: old)
            }
            // An upgrade opened where the operator places the plugin now: that it moved is said too.
            if (old.servedBy == nil) != (new.servedBy == nil) { entry.movedTo = new.servedBy == nil ? .inProcess : .ownProcess }
            report.entries.append(entry)
        }
        report.entries += unmoved.map { ReloadReport.Entry(.kept, $0.plugin, error: $0.error) }
        // Named as the instances replaced: beside `upgraded name`, a bare `stopped name` read as if the
        // plugin had stopped.
        report.stopped.entries += retire(retiring, replaced: &previous).entries.map { $0.of(instance: "old instance, replaced") }
        retiring = []
    }

    /// What a step that failed for `error` reports: each served version it would have replaced
    /// `kept`, each new plugin `refused`.
    private static func refused(_ step: ReloadStep, _ error: PluginLoadError) -> [ReloadReport.Entry] {
        step.changes.map { change in
            change.old.map { ReloadReport.Entry(.kept, $0, error: error) } ?? ReloadReport.Entry(.refused, change.new, error: error)
        }
    }

    /// Stops what a step that failed registered or started, in the clone it made, keeping what the
    /// published locator serves: the plugins registered are closed (no hook of theirs ran), those
    /// started are shut down. Each named as an instance of a step not swapped in: beside a `kept`
    /// entry for the same name, a bare `stopped name` would read as the served one.
    private func rollBack(_ failure: LoadPipeline.Failure) -> [ShutdownReport.Entry] {
        guard let clone = failure.locator else { return [] }
        let served = host.locator
        let stopped = PluginStop.run(failure.unstarted, in: clone, timeout: limits.hook, runningHooks: false, keeping: served).entries
            + PluginStop.run(failure.started, in: clone, timeout: limits.hook, keeping: served).entries
        return stopped.map { $0.of(instance: "new instance, not swapped in") }
    }

    /// Stops `plugins`, which `replaced` served and the published locator serves no longer, once no
    /// one reads `replaced` any more: when it is gone (every get that began before the swap has
    /// returned, and no caller holds it), after `limits.drain` at most, at once if a shutdown is
    /// asked for. Takes `replaced` (sets it to nil): the reference this host held is the last one.
    private func retire(_ plugins: [StartedPlugin], replaced: inout ServiceLocator?) -> ShutdownReport {
        // The same slots, to find what exists to close at the end; not a reader of `replaced`.
        let closing = try? replaced?.clone()
        weak let watched = replaced
        replaced = nil
        guard !plugins.isEmpty else { return ShutdownReport() }
        let deadline = ContinuousClock.now + limits.drain
        var pause: UInt32 = 100
        while watched != nil, ContinuousClock.now < deadline, !host.isShutdownAsked {
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
        // (A host's locator never refuses a clone; without one, nothing is closed rather than the new ones.)
        return PluginStop.run(plugins, in: closing ?? ServiceLocator(), timeout: limits.hook, keeping: host.locator)
    }
}
