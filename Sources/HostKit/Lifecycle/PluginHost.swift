internal import DynamicLoading
@_spi(HostKit) import PluginAPI

/// Loads plugins into a `ServiceLocator` and keeps the current, read-only locator.
///
/// ```swift
/// let host = PluginHost()
/// let report = host.load([.directory("/usr/lib/myapp/plugins")])
/// for problem in report.problems { print(problem) }
/// let greeter = try host.locator.tryService(key: Keys.greeter)
/// ```
///
/// Each ``load(_:probe:)`` works on a clone of the current locator and swaps it in when done, so
/// readers of ``locator`` never see a half-loaded set, and plugins loaded before stay as they were.
///
/// Plugins never hold a `ServiceLocator` of the host: their registrars and start hooks lend them
/// a `ServiceResolver`, which gets services and changes none, and which reads the host's current
/// services (those registered so far while their load runs, the published ones after it).
///
/// Lifecycle: once a load's plugins are registered and the locator is read-only, each plugin's
/// `Module.start(services:)` runs, in dependency order; ``shutdown(timeout:)`` (or
/// ``ShutdownSignals``) runs their `Module.shutdown()` hooks in reverse order.
public final class PluginHost: Sendable {
    /// What loads, reloads and shutdowns change.
    struct State {
        var current: ServiceLocator
        /// Plugins whose start hook succeeded, in start order.
        var started: [StartedPlugin] = []
        /// The plugins whose slots `current` holds, in registration order: what a probe registers
        /// before a plugin of a later load that requires their keys.
        var published: [LoadedPlugin] = []
        /// Every source a load was given, each once, in order: what a reload scans again.
        var sources: [PluginSource] = []
        /// Set by a shutdown, cleared by a load: a reload then does nothing (it would start plugins
        /// that no shutdown stops, in a program on its way out).
        var isShutDown = false
    }

    let state: Lock<State>
    /// What every load's resolvers read once the load is published: the current locator.
    let currentSource: ServiceSource
    /// Held for a whole load or reload, so two cannot each clone the same locator and lose one's
    /// plugins. Readers of ``locator`` never wait for it.
    let loading = Lock(())
    /// Shutdowns asked for and not done yet: a load that runs meanwhile starts no more plugins, and
    /// cancels the start hook it waits for, so that the shutdown comes soon.
    let shutdownsPending = Lock(0)
    /// How plugin files are found and which are trusted.
    public let discovery: PluginDiscovery
    /// How long one plugin's start hook may take before it counts as failed.
    public let startTimeout: Duration

    /// A host whose locator starts empty.
    public convenience init(discovery: PluginDiscovery = PluginDiscovery(), startTimeout: Duration = .seconds(30)) {
        self.init(start: ServiceLocator(), discovery: discovery, startTimeout: startTimeout)
    }

    /// A host whose locator starts as a clone of `base`, which holds services of the host itself
    /// (configuration, say) for plugins to use. Throws `ServiceLocatorError.cloneDenied` if `base`
    /// refuses to be cloned.
    public convenience init(base: ServiceLocator, discovery: PluginDiscovery = PluginDiscovery(),
                            startTimeout: Duration = .seconds(30)) throws {
        self.init(start: try base.clone(), discovery: discovery, startTimeout: startTimeout)
    }

    private init(start: ServiceLocator, discovery: PluginDiscovery, startTimeout: Duration) {
        // The host's locators never deny cloning: each load works on a clone of the current one.
        start.setReadOnly(denyClone: false)
        state = Lock(State(current: start))
        currentSource = ServiceSource(start)
        self.discovery = discovery
        self.startTimeout = startTimeout
    }

    /// The current locator: read-only, with the services of every plugin loaded so far.
    public var locator: ServiceLocator { state.withLock(\.current) }

    /// Finds, opens, orders and registers the plugins in `sources`, then publishes the new locator.
    /// Good plugins load even when others fail; the report says what happened to each file.
    ///
    /// With a `probe`, each file is first loaded in a child process, and a plugin that requires keys is
    /// registered there after their providers, in this load's order; one that crashes, hangs or exits
    /// there is reported (``PluginLoadError/probeFailed(path:reason:)``) and never loaded into this
    /// process, nor are the plugins that require it. Start hooks are not probed.
    ///
    /// Once registered, the plugins start (`Module.start(services:)`) in dependency order, before the
    /// new locator is published. A plugin whose start throws or outlasts ``startTimeout`` is reported
    /// (``PluginLoadError/startFailed(plugin:reason:)``), as are the plugins that require its keys,
    /// and the published locator holds none of their slots. Each hook runs on a thread of its own;
    /// this call blocks its thread until they are done.
    @discardableResult
    public func load(_ sources: [PluginSource], probe: PluginProbe? = nil) -> LoadReport {
        load(sources, probe: probe, start: true)
    }

    /// ``load(_:probe:)``, with a choice: with `start` false, the plugins are found, opened, checked
    /// and registered, and the new locator is published, but no `Module.start(services:)` runs, so
    /// loading has no effect a plugin's hooks would have (a file written, a port taken). Those
    /// plugins are not in ``startedPlugins``, and ``shutdown(timeout:)`` runs no hook of theirs. For
    /// a look at what would load (a listing, a check), not for serving: a service whose plugin
    /// prepares it in `start` may not work.
    @discardableResult
    public func load(_ sources: [PluginSource], probe: PluginProbe? = nil, start: Bool) -> LoadReport {
        loading.withLock { _ in loadSerially(sources, probe: probe, start: start) }
    }

    /// The phases of `LoadPipeline`, one after another, then the start hooks (unless `start` is
    /// false) and the swap.
    private func loadSerially(_ sources: [PluginSource], probe: PluginProbe?, start: Bool) -> LoadReport {
        state.withLock { state in
            for source in sources where !state.sources.contains(source) { state.sources.append(source) }
            state.isShutDown = false
        }
        let pipeline = LoadPipeline(discovery: discovery)
        defer { pipeline.finish() }
        let (candidates, problems) = pipeline.discover(sources)
        var load = Load()
        let opened = openChoosingCopies(candidates, with: pipeline, probe: probe, into: &load)
        markLibraries(of: opened, among: candidates, in: &load.outcome)
        publish(opened, with: pipeline, probe: probe, start: start, load: &load)
        var report = LoadReport()
        report.entries = candidates.compactMap { load.outcome[$0.realPath] }
            + problems.map { LoadReport.Entry(path: $0.subject, metadata: nil, error: $0) }
        return report
    }

    /// Phases 3 to 5 for the plugins `opened` (in discovery order), then the swap: plans them beside
    /// the published services, registers them into a clone of the current locator, starts them
    /// (unless `start` is false), and publishes the clone. Each plugin's outcome goes into `load`.
    func publish(_ opened: [LoadedPlugin], with pipeline: LoadPipeline, probe: PluginProbe?, start: Bool = true,
                 load: inout Load) {
        let next: ServiceLocator
        do {
            next = try locator.clone()
        } catch {
            // Not expected: every locator this host publishes allows cloning. Nothing was registered.
            for plugin in opened {
                load.outcome[plugin.path] = LoadReport.Entry(
                    plugin, error: .registrationFailed(plugin: plugin.metadata.name, reason: "the host's locator: \(error)"))
            }
            return
        }
        // What this load's plugins get services through: `next` while the load runs (its plugins see
        // each other), the host's published locator once it is published. Never `next` itself.
        let source = ServiceSource(next)
        let services = ServiceResolver(source: source)
        let plan = pipeline.plan(opened, in: next)
        for (plugin, error) in plan.refused {
            load.outcome[plugin.path] = LoadReport.Entry(plugin, error: error)
        }
        let registered = register(plan.order, with: pipeline, probe: probe, into: next, services: services, load: &load)
        next.setReadOnly(denyClone: false)
        let (started, dropped) = start ? self.start(registered, in: next, services: services) : ([], [])
        for (plugin, error) in dropped {
            load.outcome[plugin.path] = LoadReport.Entry(plugin, error: error)
        }
        let droppedPaths = Set(dropped.map(\.plugin.path))
        swap(to: next, builtBy: source) { state in
            state.started += started
            state.published += registered.map(\.plugin).filter { !droppedPaths.contains($0.path) }
        }
    }

    /// Publishes `next`: ``locator`` returns it from now on, and every resolver this host lent reads
    /// it; `source`, which served it while it was built, follows the host's from now on. `update`
    /// changes the bookkeeping under the same lock. Returns the locator replaced, and what `update` returned.
    @discardableResult
    func swap<T>(to next: ServiceLocator, builtBy source: ServiceSource,
                 _ update: (inout State) -> T) -> (replaced: ServiceLocator, T) {
        state.withLock { state in
            let replaced = state.current
            state.current = next
            currentSource.serve(next)
            source.follow(currentSource)
            return (replaced, update(&state))
        }
    }

    /// What one load has found out so far.
    struct Load {
        /// Each file's outcome, by real path.
        var outcome: [String: LoadReport.Entry] = [:]
        /// The plugins a probe child registered already (they require nothing): no second probe.
        var registeredInProbe: Set<String> = []
    }

    /// ``open(_:with:probe:into:)`` in the order that maps the copy of each contract library chosen
    /// (``LibraryCopies``) before the others: the loader binds every later plugin to the copy it maps
    /// first. Returns the plugins in the order of `candidates`.
    func openChoosingCopies(_ candidates: [PluginCandidate], with pipeline: LoadPipeline, probe: PluginProbe?,
                            into load: inout Load) -> [LoadedPlugin] {
        let position = Dictionary(candidates.enumerated().map { ($1.realPath, $0) }) { first, _ in first }
        return open(LibraryCopies.openingOrder(for: candidates), with: pipeline, probe: probe, into: &load)
            .sorted { position[$0.path, default: .max] < position[$1.path, default: .max] }
    }

    /// Phase 2 for each candidate (after its probe, if there is one): the plugins opened, in
    /// discovery order; the refused ones go into `load`.
    func open(_ candidates: [PluginCandidate], with pipeline: LoadPipeline, probe: PluginProbe?,
                      into load: inout Load) -> [LoadedPlugin] {
        var opened: [LoadedPlugin] = []
        for candidate in candidates {
            switch probe?.check(candidate) {
            case let .failure(failure):
                load.outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: failure)
                continue
            case .success(.registered): load.registeredInProbe.insert(candidate.realPath)
            case .success, nil: break
            }
            switch pipeline.open(candidate) {
            case let .success(plugin): opened.append(plugin)
            case let .failure(error):
                load.outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: error)
            }
        }
        return opened
    }

    /// Phase 4 for the planned plugins, in order (each that requires keys probed first, if there is
    /// a probe); returns those registered, with their modules.
    func register(_ order: [LoadedPlugin], with pipeline: LoadPipeline, probe: PluginProbe?,
                          into next: ServiceLocator, services: ServiceResolver,
                          load: inout Load) -> [(plugin: LoadedPlugin, module: ModuleHandle)] {
        var failed = FailedProviders()
        var registered: [(plugin: LoadedPlugin, module: ModuleHandle)] = []
        let published = state.withLock(\.published)
        for plugin in order {
            if let probe, !load.registeredInProbe.contains(plugin.path),
               failed.missingRequirement(of: plugin.metadata, failedTo: "register") == nil,
               let failure = Self.probeRegistration(of: plugin, with: probe, after: published + registered.map(\.plugin)) {
                failed.add(plugin.metadata)
                load.outcome[plugin.path] = LoadReport.Entry(plugin, error: failure)
                continue
            }
            switch pipeline.register(plugin, into: next, services: services, failed: failed) {
            case let .success(module):
                registered.append((plugin, module))
                load.outcome[plugin.path] = LoadReport.Entry(plugin, error: nil)
            case let .failure(error):
                failed.add(plugin.metadata)
                load.outcome[plugin.path] = LoadReport.Entry(plugin, error: error)
            }
        }
        return registered
    }

    /// Turns the "not a plugin" of each file that a plugin of `opened` links into a library entry: a
    /// contract library laid beside the plugins that use it is where it belongs, not a problem. A
    /// file of that name that is not the copy those plugins are bound to says which copy is. So does
    /// a plugin among `candidates` refused before it opened, by its file's `DT_NEEDED`: its refusal is
    /// the problem, not the library beside it.
    func markLibraries(of opened: [LoadedPlugin], among candidates: [PluginCandidate],
                       in outcome: inout [String: LoadReport.Entry]) {
        var linkers: [String: [String]] = [:]
        for plugin in opened {
            for file in plugin.linkedLibraries { linkers[file, default: []].append(plugin.metadata.name) }
        }
        let openedPaths = Set(opened.map(\.path))
        for candidate in candidates where !openedPaths.contains(candidate.realPath) {
            guard let entry = outcome[candidate.realPath], let error = entry.error else { continue }
            if case .missingEntrySymbol = error { continue }
            let name = entry.metadata?.name ?? candidate.fileNames.first ?? candidate.path
            for file in candidate.dynamic?.needed ?? [] { linkers[file, default: []].append(name) }
        }
        guard !linkers.isEmpty else { return }
        // The copies the plugins are bound to (the loader binds every plugin to one copy of a name),
        // by file and by the name plugins link them by.
        let copies = opened.flatMap(\.copies)
        let byFile = Dictionary(copies.map { ($0.file, $0) }) { first, _ in first }
        let byName = Dictionary(copies.map { ("lib\($0.version.name).so", $0) }) { first, _ in first }
        for candidate in candidates {
            guard case .missingEntrySymbol? = outcome[candidate.realPath]?.error,
                  let (name, users) = candidate.fileNames.lazy.compactMap({ name in linkers[name].map { (name, $0) } }).first
            else { continue }
            if let bound = byName[name], bound.file != candidate.realPath {
                outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: nil, usedInstead: bound)
            } else {
                outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: nil, linkedBy: users,
                                                               library: byFile[candidate.realPath])
            }
        }
    }

    /// Probes the registration of `plugin` in a child, after the plugins among `registered` (in their
    /// registration order) that provide its requirements, and theirs; returns why it failed, or nil.
    static func probeRegistration(of plugin: LoadedPlugin, with probe: PluginProbe,
                                          after registered: [LoadedPlugin]) -> PluginLoadError? {
        var providerOf: [String: Int] = [:]
        for (index, candidate) in registered.enumerated() {
            for key in candidate.metadata.providedStoreKeys { providerOf[key] = index }
        }
        var needed: Set<Int> = []
        var keys = plugin.metadata.requiredStoreKeys
        while let key = keys.popLast() {
            guard let index = providerOf[key], needed.insert(index).inserted else { continue }
            keys += registered[index].metadata.requiredStoreKeys
        }
        switch probe.check(plugin, after: needed.sorted().map { registered[$0] }) {
        case let .failure(failure): return failure
        // Refused in the child without a crash: the registration here reports the exact error.
        case .success(.registered), .success(.refused): return nil
        case .success(.opened):
            return .probeFailed(path: plugin.path, reason: "the probe could not meet its requirements "
                                + "(services of the host's own base locator? give the probe child the same base)")
        }
    }

    /// Runs the start hooks of `plugins` (in dependency order) with `services`, which reads `locator`;
    /// returns the plugins that started and the ones dropped: a failed start, or a requirement
    /// provided by a dropped plugin. A dropped plugin's slots are withdrawn from `locator` before the
    /// next hook runs.
    func start(_ plugins: [(plugin: LoadedPlugin, module: ModuleHandle)], in locator: ServiceLocator,
                       services: ServiceResolver)
        -> (started: [StartedPlugin], dropped: [(plugin: LoadedPlugin, error: PluginLoadError)]) {
        var started: [StartedPlugin] = []
        var dropped: [(plugin: LoadedPlugin, error: PluginLoadError)] = []
        var failed = FailedProviders()
        let stopping = { self.shutdownsPending.withLock { $0 > 0 } }
        for (plugin, handle) in plugins {
            let meta = plugin.metadata
            let error: PluginLoadError?
            if let missing = failed.missingRequirement(of: meta, failedTo: "start") {
                error = missing
            } else if stopping() {
                error = .startFailed(plugin: meta.name, reason: "was not run: the host is shutting down")
            } else {
                let outcome = HookRunner.run(name: "start \(meta.name)", timeout: startTimeout, stop: stopping) {
                    try await handle.module.start(services: services)
                }
                error = outcome.isFinished ? nil : .startFailed(plugin: meta.name, reason: outcome.description)
            }
            if let error {
                failed.add(meta)
                // What it made is closed, as at shutdown: taken before its slots go. Not what the
                // published locator serves (the same object, from a plugin registered again).
                var seen = Self.servedInstances(in: self.locator)
                let keys = meta.providedStoreKeys
                let closables = Self.existingClosables(keys, in: locator, seen: &seen)
                // At once, from the locator every resolver of this load reads: the hooks that run
                // after this one cannot reach it either.
                locator.withdraw(keys)
                let unclosed = closables.compactMap { key, closable -> String? in
                    let outcome = HookRunner.run(name: "close \(key)", timeout: startTimeout) { try await closable.close() }
                    return outcome.isFinished ? nil : "closing \(key) \(outcome)"
                }
                dropped.append((plugin, unclosed.isEmpty ? error : error.adding(unclosed.joined(separator: "; "))))
            } else {
                started.append(StartedPlugin(name: meta.name, module: handle, keys: meta.providedStoreKeys))
            }
        }
        return (started, dropped)
    }

    /// The plugins started and not shut down yet, in start order.
    public var startedPlugins: [String] { state.withLock { $0.started.map(\.name) } }

    /// Calls the shutdown hook of every started plugin, in reverse start order, then closes that
    /// plugin's existing services that are `ClosableService`s. Each hook and each close is bounded
    /// by `timeout`: one that throws or hangs is reported, and the others still run. A load in
    /// progress starts no more plugins (the start hook it waits for is cancelled, the plugins not
    /// started yet are reported as not started) and is waited for, so every plugin whose start
    /// returned gets its shutdown. The plugins' services stay in ``locator``; a later
    /// ``load(_:probe:)`` starts the plugins it loads. Blocks the calling thread while hooks run.
    @discardableResult
    public func shutdown(timeout: Duration = .seconds(5)) -> ShutdownReport {
        shutdownsPending.withLock { $0 += 1 }
        defer { shutdownsPending.withLock { $0 -= 1 } }
        return loading.withLock { _ in
            let (stopping, locator) = state.withLock { state in
                defer { state.started = [] }
                state.isShutDown = true
                return (state.started, state.current)
            }
            return Self.stop(stopping, in: locator, timeout: timeout)
        }
    }

    /// Runs the shutdown hooks of `plugins` in reverse start order, each followed by the closing of
    /// its services that exist in `locator` and are closable, then closes what a later hook made;
    /// each hook and each close bounded by `timeout`. Without `runningHooks`, only closes (for plugins
    /// registered and never started). An instance that `served` serves (the locator published, when
    /// the plugins stopped are an old version or a refused new one) is not closed: a plugin registered
    /// again from its image may serve the same object (a static) from its new instance.
    static func stop(_ plugins: [StartedPlugin], in locator: ServiceLocator, timeout: Duration,
                     runningHooks: Bool = true, keeping served: ServiceLocator? = nil) -> ShutdownReport {
        var report = ShutdownReport()
        let clock = ContinuousClock()
        func run(_ plugin: String, service: String?, _ body: @escaping @Sendable () async throws -> Void) {
            let begin = clock.now
            let thread = service.map { "close \($0)" } ?? "shutdown \(plugin)"
            let outcome = HookRunner.run(name: thread, timeout: timeout, body)
            report.entries.append(ShutdownReport.Entry(plugin: plugin, service: service, outcome: outcome,
                                                       duration: clock.now - begin))
        }
        // One instance registered under several keys (or by several plugins) is closed once.
        var closed = served.map(servedInstances) ?? []
        var closedKeys: Set<String> = []
        for plugin in plugins.reversed() {
            if runningHooks { run(plugin.name, service: nil) { try await plugin.module.module.shutdown() } }
            for (key, closable) in existingClosables(plugin.keys.reversed(), in: locator, seen: &closed) {
                closedKeys.insert(key)
                run(plugin.name, service: key) { try await closable.close() }
            }
        }
        // A lazy service that a later plugin's shutdown hook made, after its own plugin's were
        // closed: closed now, after every hook.
        for plugin in plugins.reversed() {
            let late = plugin.keys.reversed().filter { !closedKeys.contains($0) }
            for (key, closable) in existingClosables(late, in: locator, seen: &closed) {
                run(plugin.name, service: key) { try await closable.close() }
            }
        }
        return report
    }

    /// The instances of classes that `locator` serves now (made already), under any key.
    static func servedInstances(in locator: ServiceLocator) -> Set<ObjectIdentifier> {
        Set(locator.slots.compactMap { slot in
            locator.existingService(forKey: slot.key).flatMap { service in
                type(of: service) is AnyClass ? ObjectIdentifier(service as AnyObject) : nil
            }
        })
    }

    /// The `ClosableService`s that exist under `keys` in `locator`, in the order of `keys`: only what
    /// exists (a lazy service never made is not made to be closed), and an instance (of a class) that
    /// `seen` holds or that an earlier key served is left out, so that each is closed once.
    static func existingClosables(_ keys: some Sequence<String>, in locator: ServiceLocator,
                                          seen: inout Set<ObjectIdentifier>) -> [(key: String, service: any ClosableService)] {
        keys.compactMap { key in
            guard let closable = locator.existingService(forKey: key) as? any ClosableService else { return nil }
            if type(of: closable as Any) is AnyClass, !seen.insert(ObjectIdentifier(closable as AnyObject)).inserted {
                return nil
            }
            return (key, closable)
        }
    }

    /// Reads the header, the library versions and the metadata of one plugin file, registering
    /// nothing, and says whether the host would load it. A plugin built against library versions the
    /// process cannot serve is still shown, with the refusal, when its descriptor can be read safely.
    /// With a `probe`, the file is first opened in a child process: one that crashes, hangs or exits
    /// there is reported and never opened in this process.
    public static func inspect(_ path: String, discovery: PluginDiscovery = PluginDiscovery(),
                               probe: PluginProbe? = nil) -> PluginInspection {
        let pipeline = LoadPipeline(discovery: discovery)
        defer { pipeline.finish() }
        switch pipeline.discover(file: path) {
        case let .failure(refusal):
            return PluginInspection(path: path, plugin: nil, refusal: refusal)
        case let .success(candidate):
            if case let .failure(failure)? = probe?.check(candidate) {
                return PluginInspection(path: candidate.realPath, plugin: nil, refusal: failure)
            }
            return pipeline.inspect(candidate)
        }
    }
}
