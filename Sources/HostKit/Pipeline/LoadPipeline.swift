@_spi(HostKit) import PluginAPI

/// One load, from plugin files to started services, staged beside the services published: what a
/// first load, each reload, the ``PluginProbe`` child and an inspection run. Its phases, in order:
///
/// 1. ``discover(_:)``: sources become candidate files: absolute real paths of regular files that
///    only this user or root can change, nor the folders and symlinks on the way (``PathTrust``);
///    each file is checked where it lies, copied into this load's ``ShadowFolder`` and read there,
///    once, for its ELF headers (``ELFCheck``) and its toolchain (``CompilerIdentity``).
///    (``PluginDiscovery``)
/// 2. ``open(_:beside:)``: contract-library copies first (``LibraryCopies``); each file probed in a
///    child (with a probe), then the libraries its copy would bring found and checked
///    (``LibraryClosure``), the copy opened (``DynamicLibrary``), the header its entry returns read
///    (``PluginHeader``) and the library versions it records checked (``LibraryCheck``); only then
///    is its descriptor read. Once per file and process. (``PluginLoader``)
/// 3. ``stage(_:onto:after:registeredInProbe:as:)``: on a clone of the published locator, names,
///    keys and requirements planned, providers first (``LoadPlan``); each module registered, all or
///    nothing, its declared keys only, after its probe in a child (``PluginRegistration``); then
///    the start hooks, in dependency order (``PluginStart``).
///
/// What a stage hands back (``Staged``) is not published: ``PluginHost`` swaps it in, or drops it.
/// ``finish()`` removes the load's copies once its files are open.
struct LoadPipeline {
    /// How files are found and which are trusted.
    let discovery: PluginDiscovery
    /// This load's folder of copies (``ShadowFolder``), or why it has none: then nothing loads.
    let shadow: Result<ShadowFolder, PluginLoadError>
    /// Loads each file, and registers each plugin that requires keys, in a child first; or nil.
    let probe: PluginProbe?
    /// How start hooks run; nil: none runs (a look at what would load, or a probe child).
    let start: PluginStart?

    /// A pipeline for one load, with a new folder for its copies in `discovery`'s
    /// ``PluginDiscovery/shadowFolder``. Call ``finish()`` when the load has opened its plugins.
    init(discovery: PluginDiscovery, probe: PluginProbe? = nil, start: PluginStart? = nil) {
        self.discovery = discovery
        self.probe = probe
        self.start = start
        shadow = ShadowFolder.make(in: discovery.shadowFolder)
    }

    /// Where this load's copies are: a probe child makes its own folder inside.
    private var shadowRoot: String? { try? shadow.get().root }

    /// Removes this load's copies (what was mapped stays mapped). The load's files are opened by now.
    func finish() {
        if case let .success(shadow) = shadow { shadow.remove() }
    }

    // MARK: Phase 1

    /// The candidate files of `sources`, each once, and what was wrong with the rest.
    func discover(_ sources: [PluginSource]) -> (candidates: [PluginCandidate], problems: [PluginLoadError]) {
        switch shadow {
        case let .success(shadow): discovery.discover(sources, into: shadow)
        case let .failure(problem): ([], [problem])
        }
    }

    /// The candidate file at `path`.
    func discover(file path: String) -> Result<PluginCandidate, PluginLoadError> {
        shadow.flatMap { discovery.candidate(path, into: $0) }
    }

    // MARK: Phase 2

    /// The files opened, and what became of the others.
    struct Opened {
        /// The plugins opened, in discovery order.
        var plugins: [LoadedPlugin] = []
        /// Each other file's outcome, by real path: why it was refused, or which plugins link it.
        var outcome: [String: LoadReport.Entry] = [:]
        /// The plugins a probe child registered already (they require nothing): no second probe.
        var registeredInProbe: Set<String> = []
    }

    /// Each of `candidates` probed (with a probe) and opened, in the order that maps the copy of each
    /// contract library chosen (``LibraryCopies``) before the others: the loader binds every later
    /// plugin to the copy it maps first. A candidate that is a library that the opened plugins, or
    /// the plugins `served` already, link is marked as one.
    func open(_ candidates: [PluginCandidate], beside served: [LoadedPlugin] = []) -> Opened {
        var opened = Opened()
        for candidate in LibraryCopies.openingOrder(for: candidates) {
            switch probe?.check(candidate, folder: shadowRoot) {
            case let .failure(failure):
                opened.outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: failure)
                continue
            case .success(.registered): opened.registeredInProbe.insert(candidate.realPath)
            case .success, nil: break
            }
            switch open(candidate) {
            case let .success(plugin): opened.plugins.append(plugin)
            case let .failure(error):
                opened.outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: error)
            }
        }
        let position = Dictionary(candidates.enumerated().map { ($1.realPath, $0) }) { first, _ in first }
        opened.plugins.sort { position[$0.path, default: .max] < position[$1.path, default: .max] }
        LibraryEntries.mark(of: served + opened.plugins, among: candidates, in: &opened.outcome)
        return opened
    }

    /// The plugin in one candidate's file, or why it is refused (no probe: a probe child's own step).
    func open(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginLoadError> {
        PluginLoader.load(candidate)
    }

    /// The file at `path`, for showing it: what a plugin refused for its library versions says of
    /// itself, after its probe (with a probe). Registers nothing.
    func inspect(file path: String) -> PluginInspection {
        switch discover(file: path) {
        case let .failure(refusal):
            return PluginInspection(path: path, plugin: nil, refusal: refusal)
        case let .success(candidate):
            if case let .failure(failure)? = probe?.check(candidate, folder: shadowRoot) {
                return PluginInspection(path: candidate.realPath, plugin: nil, refusal: failure)
            }
            return PluginLoader.inspect(candidate)
        }
    }

    // MARK: Phase 3

    /// How a stage treats its plugins.
    enum Batch {
        /// As a first load: planned (``LoadPlan``); each plugin that fails is left out, with those
        /// that require it, and the others go on.
        case planned
        /// A step of a reload: in the order given, taking over the keys `withdrawing`; all or
        /// nothing, so one failure fails the stage, and what it started is stopped again, each hook
        /// and close bounded by `stopTimeout`.
        case allOrNothing(withdrawing: [String], stopTimeout: Duration)
    }

    /// A locator staged with new plugins, not published.
    struct Staged {
        /// The locator to publish (read-only), and what served it while it was built; nil if the
        /// stage failed as a whole.
        var locator: ServiceLocator?
        var source: ServiceSource?
        /// The plugins registered and not dropped at start, in registration order.
        var registered: [LoadedPlugin] = []
        /// The plugins whose start hook succeeded, in start order.
        var started: [StartedPlugin] = []
        /// Each plugin's outcome, by path.
        var outcome: [String: LoadReport.Entry] = [:]
        /// Why an all-or-nothing stage failed.
        var failure: PluginLoadError?
        /// What a failed all-or-nothing stage stopped again.
        var stopped = ShutdownReport()
    }

    /// `plugins` registered into a clone of `current` (the published locator) and started; each that
    /// requires keys is probed first (with a probe) after the plugins among `published` and those
    /// registered before it that provide them, unless it is among `registeredInProbe`.
    func stage(_ plugins: [LoadedPlugin], onto current: ServiceLocator, after published: [LoadedPlugin],
               registeredInProbe: Set<String>, as batch: Batch) -> Staged {
        var staged = Staged()
        let next: ServiceLocator
        do {
            next = try current.clone()
        } catch {
            // Not expected: every locator a host publishes allows cloning. Nothing was registered.
            let failure = { (plugin: LoadedPlugin) in
                PluginLoadError.registrationFailed(plugin: plugin.metadata.name, reason: "the host's locator: \(error)")
            }
            if case .allOrNothing = batch, let first = plugins.first { staged.failure = failure(first) }
            for plugin in plugins { staged.outcome[plugin.path] = LoadReport.Entry(plugin, error: failure(plugin)) }
            return staged
        }
        // What these plugins get services through: `next` while the load runs (they see each other),
        // the host's published locator once it is published. Never `next` itself.
        let source = ServiceSource(next)
        let services = ServiceResolver(source: source)
        let order: [LoadedPlugin]
        switch batch {
        case .planned:
            let plan = plan(plugins, in: next)
            for (plugin, error) in plan.refused { staged.outcome[plugin.path] = LoadReport.Entry(plugin, error: error) }
            order = plan.order
        case let .allOrNothing(withdrawing, _):
            next.withdraw(withdrawing)
            order = plugins
        }
        var registered: [(plugin: LoadedPlugin, module: ModuleHandle)] = []
        var failed = FailedProviders()
        for plugin in order {
            let outcome = register(plugin, into: next, services: services, failed: failed, as: batch,
                                   probed: registeredInProbe.contains(plugin.path) ? nil : published + registered.map(\.plugin))
            switch outcome {
            case let .success(module):
                registered.append((plugin, module))
                staged.outcome[plugin.path] = LoadReport.Entry(plugin, error: nil)
            case let .failure(error):
                failed.add(plugin.metadata)
                staged.outcome[plugin.path] = LoadReport.Entry(plugin, error: error)
                guard case let .allOrNothing(_, stopTimeout) = batch else { continue }
                // Nothing started; what an `atOne` factory of a registered one made is closed.
                let unstarted = registered.map {
                    StartedPlugin(name: $0.plugin.metadata.name, module: $0.module, keys: $0.plugin.metadata.providedStoreKeys)
                }
                staged.stopped = Self.notSwappedIn(PluginStop.run(unstarted, in: next, timeout: stopTimeout,
                                                                  runningHooks: false, keeping: current))
                staged.failure = error
                return staged
            }
        }
        next.setReadOnly(denyClone: false)
        let (started, dropped) = start?.run(registered, in: next, services: services, served: current) ?? ([], [])
        for (plugin, error) in dropped { staged.outcome[plugin.path] = LoadReport.Entry(plugin, error: error) }
        if case let .allOrNothing(_, stopTimeout) = batch, let failure = dropped.first {
            staged.stopped = Self.notSwappedIn(PluginStop.run(started, in: next, timeout: stopTimeout, keeping: current))
            staged.failure = failure.error
            return staged
        }
        let droppedPaths = Set(dropped.map(\.plugin.path))
        staged.locator = next
        staged.source = source
        staged.registered = registered.map(\.plugin).filter { !droppedPaths.contains($0.path) }
        staged.started = started
        return staged
    }

    /// The order in which `plugins` (in discovery order) register into `locator`, and the plugins
    /// refused before any registration.
    private func plan(_ plugins: [LoadedPlugin], in locator: ServiceLocator) -> LoadPlan {
        // Only the keys the new plugins name are looked up, not every slot the locator has; in an
        // empty locator (a first load, often) none.
        if locator.slots.isEmpty { return LoadPlan(plugins) { _ in nil } }
        return LoadPlan(plugins) { key in locator.slotInfo(forKey: key).map { $0.origin ?? "host" } }
    }

    /// `plugin`'s module into `locator`, all or nothing; its registrar lends it `services`. Refused at
    /// once if it requires a key of a plugin that `failed`, or (all or nothing) if a key it provides
    /// is taken or one it requires is missing; probed first after the plugins `probed` names (if
    /// there is a probe and it is not nil).
    private func register(_ plugin: LoadedPlugin, into locator: ServiceLocator, services: ServiceResolver,
                          failed: FailedProviders, as batch: Batch, probed: [LoadedPlugin]?) -> Result<ModuleHandle, PluginLoadError> {
        let unmet = switch batch {
        case .planned: failed.missingRequirement(of: plugin.metadata, failedTo: "register")
        case .allOrNothing: Self.unmet(plugin, in: locator)
        }
        if let unmet { return .failure(unmet) }
        if let probe, let probed, let failure = probe.checkRegistration(of: plugin, after: probed, folder: shadowRoot) {
            return .failure(failure)
        }
        return register(plugin, into: locator, services: services)
    }

    /// One plugin's module into `locator`, all or nothing (no probe: a probe child's own step).
    func register(_ plugin: LoadedPlugin, into locator: ServiceLocator, services: ServiceResolver)
        -> Result<ModuleHandle, PluginLoadError> {
        PluginRegistration.register(plugin, into: locator, services: services, failed: FailedProviders())
    }

    /// Why `plugin` cannot be registered into `next` as it stands, or nil: a key it provides is
    /// another's, or a key it requires is missing. (A reload's plan saw to both; the locator is
    /// checked again all the same.)
    private static func unmet(_ plugin: LoadedPlugin, in next: ServiceLocator) -> PluginLoadError? {
        let meta = plugin.metadata
        for key in meta.providedStoreKeys {
            if let slot = next.slotInfo(forKey: key) {
                return .keyConflict(key: key, plugin: meta.name, providedBy: slot.origin ?? "host")
            }
        }
        for key in meta.requiredStoreKeys where next.slotInfo(forKey: key) == nil {
            return .missingRequirement(plugin: meta.name, key: key, reason: "no loaded plugin provides it")
        }
        return nil
    }

    /// The entries of `report`, each plugin named as an instance of a step that was not swapped in:
    /// beside a `kept` entry for the same name, a bare `stopped name` would read as the served one.
    private static func notSwappedIn(_ report: ShutdownReport) -> ShutdownReport {
        var renamed = ShutdownReport()
        renamed.entries = report.entries.map {
            ShutdownReport.Entry(plugin: "\($0.plugin) (new instance, not swapped in)", service: $0.service,
                                 outcome: $0.outcome, duration: $0.duration)
        }
        return renamed
    }
}
