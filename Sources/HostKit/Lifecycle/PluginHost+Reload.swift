import Glibc
@_spi(HostKit) import PluginAPI

extension PluginHost {
    /// Scans the sources of every earlier ``load(_:probe:)`` again and brings the running host up to
    /// date, without a restart and without unloading code, deciding by plugin name:
    ///
    /// - A plugin in a **new file** is added, with every check of a first load.
    /// - A plugin whose **file changed** (another file renamed over its path, or its name found in
    ///   another file while its old file is gone) is **upgraded**: the new version is loaded beside
    ///   the old, registered into a clone of the published locator taking over exactly the old
    ///   version's keys (a key it adds must be free), started, and swapped in; then the old version
    ///   is stopped. The plugins that require it, directly or through others, are registered again
    ///   from their own files and started with it, so that no service of theirs keeps an object of
    ///   the old version (``ReloadReport/Action/restarted``); one with a new version of its own in
    ///   this reload is upgraded in the same step.
    /// - A plugin whose **file is gone** is withdrawn: its services removed, then stopped. One that
    ///   plugins staying still require is kept, named in the report.
    ///
    /// Each plugin's step is all or nothing: a new version that is refused by any check, fails to
    /// register or to start (or a plugin that requires it does) leaves the old one serving, and
    /// what it started is stopped again.
    ///
    /// **When the old version stops**: after the swap, no new get reaches it. Its shutdown hook runs
    /// once nothing reads the old services any more: every get that began before the swap has
    /// returned, and no caller holds the ``locator`` it took before (hold it for the length of a
    /// request, and the request finishes on the version it began with), but at most `drainTimeout`
    /// after the swap, or at once when a shutdown is asked for. Then its closable services close.
    /// Each hook and close is bounded by `hookTimeout`. A service taken before stays the old
    /// version's object; code is never unloaded, so it stays callable.
    ///
    /// After ``shutdown(timeout:)`` (and before the next load) a reload does nothing and says so
    /// (``ReloadReport/afterShutdown``): it would start plugins that no shutdown stops.
    ///
    /// Blocks the calling thread while hooks run and readers drain; loads and shutdowns wait for it.
    @discardableResult
    public func reload(probe: PluginProbe? = nil, drainTimeout: Duration = .seconds(10),
                       hookTimeout: Duration = .seconds(5)) -> ReloadReport {
        loading.withLock { _ in
            reloadSerially(probe: probe, limits: Limits(drain: drainTimeout, hook: hookTimeout))
        }
    }

    /// How long a reload waits for readers of an old version, and for each hook.
    private struct Limits {
        let drain: Duration
        let hook: Duration
    }

    private func reloadSerially(probe: PluginProbe?, limits: Limits) -> ReloadReport {
        let (sources, published, isShutDown) = state.withLock { ($0.sources, $0.published, $0.isShutDown) }
        guard !isShutDown else {
            var report = ReloadReport()
            report.afterShutdown = true
            return report
        }
        let pipeline = LoadPipeline(discovery: discovery)
        defer { pipeline.finish() }
        let (candidates, problems) = pipeline.discover(sources)
        let (unchanged, fresh) = Self.sort(candidates, servedBy: published)
        let seenBefore = Set(fresh.filter(PluginLoader.hasOpened).map(\.realPath))
        var load = Load()
        let opened = openChoosingCopies(fresh, with: pipeline, probe: probe, into: &load)
        markLibraries(of: published + opened, among: fresh, in: &load.outcome)
        let refused = fresh.compactMap { candidate in
            load.outcome[candidate.realPath]?.error.map {
                (path: candidate.realPath, error: $0, isNew: !seenBefore.contains(candidate.realPath))
            }
        }
        let plan = ReloadPlan(published: published, unchanged: unchanged, opened: opened, refused: refused,
                              problems: problems)
        if !plan.moved.isEmpty {
            state.withLock { state in
                for plugin in plan.moved {
                    if let index = state.published.firstIndex(where: { $0.metadata.name == plugin.metadata.name }) {
                        state.published[index] = plugin
                    }
                }
            }
        }
        var report = ReloadReport()
        report.entries = plan.decided
        if !plan.withdrawals.isEmpty {
            withdraw(plan.withdrawals, limits: limits, into: &report)
        }
        // Providers first, so that a plugin and one that requires it, both with a new version, go in
        // one step (the provider's), whatever the order of their files.
        let position = Dictionary(published.enumerated().map { ($1.metadata.name, $0) }) { first, _ in first }
        let upgrades = plan.upgrades.sorted { position[$0.old.metadata.name, default: 0] < position[$1.old.metadata.name, default: 0] }
        let pending = Dictionary(upgrades.map { ($0.old.metadata.name, $0.new) }) { first, _ in first }
        var settled: Set<String> = []
        for (old, new) in upgrades where !settled.contains(old.metadata.name) {
            settled.formUnion(upgrade(old, to: new, pending: pending, with: pipeline, probe: probe,
                                      registeredInProbe: load.registeredInProbe, limits: limits, into: &report))
        }
        if !plan.additions.isEmpty {
            var added = Load(registeredInProbe: load.registeredInProbe)
            publish(plan.additions, with: pipeline, probe: probe, load: &added)
            for plugin in plan.additions {
                let error = added.outcome[plugin.path]?.error
                report.entries.append(ReloadReport.Entry(error == nil ? .added : .refused, plugin, error: error))
            }
        }
        let touched = Set(report.entries.map(\.plugin))
        report.unchanged = published.count { !touched.contains($0.metadata.name) }
        report.imagesMapped = PluginLoader.imageCount
        return report
    }

    /// The real paths of `candidates` that are a served plugin's file as it was loaded (two plugins may
    /// have come from one path), and the candidates to open: neither those nor a library a served
    /// plugin links (the loader keeps the copy it mapped; a file put over it would be mapped beside it).
    private static func sort(_ candidates: [PluginCandidate], servedBy published: [LoadedPlugin])
        -> (unchanged: Set<String>, fresh: [PluginCandidate]) {
        var servedFiles: [String: Set<FileIdentity>] = [:]
        for plugin in published {
            if let identity = plugin.candidate?.identity { servedFiles[plugin.path, default: []].insert(identity) }
        }
        let linked = Set(published.flatMap(\.linkedLibraries))
        let unchanged = Set(candidates.filter { candidate in
            candidate.identity.map { servedFiles[candidate.realPath]?.contains($0) == true } ?? false
        }.map(\.realPath))
        let fresh = candidates.filter { !unchanged.contains($0.realPath) && !$0.fileNames.contains(where: linked.contains) }
        return (unchanged, fresh)
    }

    /// Removes the services of `plugins` (in publication order) in one swap, then stops them.
    private func withdraw(_ plugins: [LoadedPlugin], limits: Limits, into report: inout ReloadReport) {
        let names = Set(plugins.map(\.metadata.name))
        let next: ServiceLocator
        do {
            next = try locator.clone()
        } catch {
            report.entries += plugins.map {
                ReloadReport.Entry(.kept, $0, error: .registrationFailed(plugin: $0.metadata.name, reason: "the host's locator: \(error)"))
            }
            return
        }
        next.withdraw(plugins.flatMap(\.metadata.providedStoreKeys))
        next.setReadOnly(denyClone: false)
        var (previous, retiring): (ServiceLocator?, [StartedPlugin]) = swap(to: next, builtBy: ServiceSource(next)) { state in
            state.published.removeAll { names.contains($0.metadata.name) }
            return Self.removeStarted(names, from: &state)
        }
        report.entries += plugins.reversed().map { ReloadReport.Entry(.withdrawn, $0) }
        report.stopped.entries += retire(retiring, replaced: &previous, limits: limits).entries
        retiring = []
    }

    /// One upgrade step: `new` in the place of `old`, with the plugins that require `old` registered
    /// again (in their `pending` new version, if they have one); all or nothing. Returns the names
    /// whose upgrade this step settled: `old`'s, and, if it succeeded, the dependents it upgraded too.
    @discardableResult
    private func upgrade(_ old: LoadedPlugin, to new: LoadedPlugin, pending: [String: LoadedPlugin],
                         with pipeline: LoadPipeline, probe: PluginProbe?, registeredInProbe: Set<String>,
                         limits: Limits, into report: inout ReloadReport) -> Set<String> {
        let published = state.withLock(\.published)
        let oldDependents = Self.dependents(of: old, among: published)
        let dependents = oldDependents.map { pending[$0.metadata.name] ?? $0 }
        let replaced = Set([old.metadata.name] + dependents.map(\.metadata.name))
        func keep(_ error: PluginLoadError) -> Set<String> {
            report.entries.append(ReloadReport.Entry(.kept, old, error: error))
            return [old.metadata.name]
        }
        if let reason = LoadPlan.malformation(of: new.metadata) {
            return keep(.malformedMetadata(path: new.path, reason: reason))
        }
        let next: ServiceLocator
        do {
            next = try locator.clone()
        } catch {
            return keep(.registrationFailed(plugin: new.metadata.name, reason: "the host's locator: \(error)"))
        }
        let source = ServiceSource(next)
        let services = ServiceResolver(source: source)
        // The old version's keys go; the new version may take them and free ones, nothing else.
        next.withdraw(old.metadata.providedStoreKeys)
        var registered: [(plugin: LoadedPlugin, module: ModuleHandle)] = []
        let staying = published.filter { !replaced.contains($0.metadata.name) }
        for (plugin, previous) in zip([new] + dependents, [old] + oldDependents) {
            if plugin.path != new.path { next.withdraw(previous.metadata.providedStoreKeys) }
            let error = Self.unmet(plugin, in: next, upgrading: old, to: new, dependents: dependents)
                ?? probe.flatMap { probe in
                    registeredInProbe.contains(plugin.path) ? nil
                        : Self.probeRegistration(of: plugin, with: probe, after: staying + registered.map(\.plugin))
                }
            let outcome = error.map { Result.failure($0) } ?? pipeline.register(plugin, into: next, services: services)
            switch outcome {
            case let .success(module):
                registered.append((plugin, module))
            case let .failure(error):
                // Nothing started; what an `atOne` factory of a registered one made is closed.
                let unstarted = registered.map {
                    StartedPlugin(name: $0.plugin.metadata.name, module: $0.module, keys: $0.plugin.metadata.providedStoreKeys)
                }
                report.stopped.entries += Self.notSwappedIn(Self.stop(unstarted, in: next, timeout: limits.hook,
                                                                      runningHooks: false, keeping: locator))
                return keep(error)
            }
        }
        next.setReadOnly(denyClone: false)
        let (started, dropped) = start(registered, in: next, services: services)
        if let failure = dropped.first {
            report.stopped.entries += Self.notSwappedIn(Self.stop(started, in: next, timeout: limits.hook, keeping: locator))
            return keep(failure.error)
        }
        var (previous, retiring): (ServiceLocator?, [StartedPlugin]) = swap(to: next, builtBy: source) { state in
            state.published.removeAll { replaced.contains($0.metadata.name) }
            state.published += registered.map(\.plugin)
            defer { state.started += started }
            return Self.removeStarted(replaced, from: &state)
        }
        report.entries.append(ReloadReport.Entry(.upgraded, new, previous: old))
        for (plugin, previous) in zip(dependents, oldDependents) {
            report.entries.append(plugin.path == previous.path && plugin.image == previous.image
                                  ? ReloadReport.Entry(.restarted, plugin) : ReloadReport.Entry(.upgraded, plugin, previous: previous))
        }
        report.stopped.entries += retire(retiring, replaced: &previous, limits: limits).entries
        retiring = []
        return replaced
    }

    /// The plugins of `published` (in its order, providers first) that require a key of `plugin`, or
    /// of another plugin in the result.
    private static func dependents(of plugin: LoadedPlugin, among published: [LoadedPlugin]) -> [LoadedPlugin] {
        var keys = Set(plugin.metadata.providedStoreKeys)
        var result: [LoadedPlugin] = []
        for other in published where other.metadata.name != plugin.metadata.name
            && other.metadata.requiredStoreKeys.contains(where: keys.contains) {
            result.append(other)
            keys.formUnion(other.metadata.providedStoreKeys)
        }
        return result
    }

    /// Why `plugin` (the new version, or one of its dependents) cannot be registered into `next` as
    /// it stands, or nil: a key it provides is another's, a key it requires is missing, or the new
    /// version requires a key of a plugin that requires it.
    private static func unmet(_ plugin: LoadedPlugin, in next: ServiceLocator, upgrading old: LoadedPlugin,
                              to new: LoadedPlugin, dependents: [LoadedPlugin]) -> PluginLoadError? {
        let meta = plugin.metadata
        for key in meta.providedStoreKeys {
            if let slot = next.slotInfo(forKey: key) {
                return .keyConflict(key: key, plugin: meta.name, providedBy: slot.origin ?? "host")
            }
        }
        // A dependent's keys are still the old instance's while the new version registers: met, but
        // by a plugin that requires the new version.
        if plugin.path == new.path {
            for key in meta.requiredStoreKeys {
                if let user = dependents.first(where: { $0.metadata.providedStoreKeys.contains(key) }) {
                    return .requirementCycle(plugin: meta.name, chain: [meta.name, user.metadata.name, meta.name])
                }
            }
        }
        for key in meta.requiredStoreKeys where next.slotInfo(forKey: key) == nil {
            let reason = old.metadata.providedStoreKeys.contains(key)
                ? "which \(new.metadata.name) \(new.metadata.version) no longer provides" : "no loaded plugin provides it"
            return .missingRequirement(plugin: meta.name, key: key, reason: reason)
        }
        return nil
    }

    /// The entries of `report`, each plugin named as an instance of a step that was not swapped in:
    /// beside a `kept` entry for the same name, a bare `stopped name` would read as the served one.
    private static func notSwappedIn(_ report: ShutdownReport) -> [ShutdownReport.Entry] {
        report.entries.map {
            ShutdownReport.Entry(plugin: "\($0.plugin) (new instance, not swapped in)", service: $0.service,
                                 outcome: $0.outcome, duration: $0.duration)
        }
    }

    /// Takes the started plugins of `names` out of the bookkeeping; returns them, in start order.
    private static func removeStarted(_ names: Set<String>, from state: inout State) -> [StartedPlugin] {
        let leaving = state.started.filter { names.contains($0.name) }
        state.started.removeAll { names.contains($0.name) }
        return leaving
    }

    /// Stops `plugins`, which `replaced` served and the published locator serves no longer, once no
    /// one reads `replaced` any more: when it is gone (every get that began before the swap has
    /// returned, and no caller holds it), after `limits.drain` at most, at once if a shutdown is
    /// asked for. Takes `replaced` (sets it to nil): the reference this host held is the last one.
    private func retire(_ plugins: [StartedPlugin], replaced: inout ServiceLocator?, limits: Limits) -> ShutdownReport {
        // The same slots, to find what exists to close at the end; not a reader of `replaced`.
        let closing = try? replaced?.clone()
        weak let watched = replaced
        replaced = nil
        guard !plugins.isEmpty else { return ShutdownReport() }
        let deadline = ContinuousClock.now + limits.drain
        var pause: UInt32 = 100
        while watched != nil, ContinuousClock.now < deadline, shutdownsPending.withLock({ $0 == 0 }) {
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
        // (A host's locator never refuses a clone; without one, nothing is closed rather than the new ones.)
        return Self.stop(plugins, in: closing ?? ServiceLocator(), timeout: limits.hook, keeping: locator)
    }
}
