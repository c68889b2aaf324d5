@_spi(HostKit) import PluginAPI

/// Phase 3 of a load (``LoadPipeline``): its plugins registered into a clone of the published locator
/// and started, handed back staged, not published.
extension LoadPipeline {
    /// How a stage treats its plugins.
    enum Batch {
        /// As a first load: planned (``LoadPlan``); each plugin that fails is left out, with those
        /// that require it, and the others go on.
        case planned
        /// A step of a reload: in the order given, taking over the keys `withdrawing`; all or
        /// nothing, so one failure fails the stage.
        case allOrNothing(withdrawing: [String])
    }

    /// A locator staged with new plugins, not published.
    struct Staged {
        /// Each plugin's outcome, by path.
        var outcome: [String: LoadReport.Entry] = [:]
        /// What to publish, or why an all-or-nothing stage failed (or the clone could not be made).
        var result: Result<Publication, Failure>
    }

    /// What a stage that went through hands back for publication.
    struct Publication {
        /// The locator to publish, read-only.
        let locator: ServiceLocator
        /// What served `locator` while it was built: it follows the host's from the swap on.
        let source: ServiceSource
        /// The plugins registered and not dropped at start, in registration order.
        let registered: [LoadedPlugin]
        /// The plugins whose start hook succeeded, in start order.
        let started: [StartedPlugin]
        /// The settings lent to each plugin of `registered`, by name: what a reload asks again.
        var settings: [String: PluginSettings] = [:]
        /// Each plugin of `registered` with its module: what a pipeline without start hooks leaves
        /// to start later (a plugin's own process, whose host registers and starts it apart).
        var modules: [(plugin: LoadedPlugin, module: ModuleHandle)] = []
    }

    /// Why a stage publishes nothing, and what it registered or started meanwhile (to be stopped).
    struct Failure: Error {
        let error: PluginLoadError
        /// The clone the plugins were registered into; nil if it could not be made.
        let locator: ServiceLocator?
        /// Registered and never started: their hooks must not run, what they made is closed.
        let unstarted: [StartedPlugin]
        /// Started: their shutdown hooks run.
        let started: [StartedPlugin]
    }

    /// `plugins` registered into a clone of `current` (the published locator, or a probe child's
    /// base) and started; each not among `registeredInProbe` is probed first (with a probe) after
    /// the plugins among `published` and those registered before it that provide its requirements.
    func stage(_ plugins: [LoadedPlugin], onto current: ServiceLocator, after published: [LoadedPlugin],
               registeredInProbe: Set<String>, as batch: Batch) -> Staged {
        let next: ServiceLocator
        do {
            next = try current.clone()
        } catch {
            // Not expected: every locator a host publishes allows cloning. Nothing was registered.
            let failure = { (plugin: LoadedPlugin) in
                PluginLoadError.registrationFailed(plugin: plugin.metadata.name, reason: "the host's locator: \(error)")
            }
            let first = plugins.first.map(failure) ?? .registrationFailed(plugin: "", reason: "the host's locator: \(error)")
            var staged = Staged(result: .failure(Failure(error: first, locator: nil, unstarted: [], started: [])))
            for plugin in plugins { staged.outcome[plugin.path] = LoadReport.Entry(plugin, error: failure(plugin)) }
            return staged
        }
        // What these plugins get services through: `next` while the load runs (they see each other),
        // the host's published locator once it is published. Never `next` itself.
        let source = ServiceSource(next)
        var outcome: [String: LoadReport.Entry] = [:]
        let order: [LoadedPlugin]
        switch batch {
        case .planned:
            let plan = plan(plugins, in: next)
            for (plugin, error) in plan.refused { outcome[plugin.path] = LoadReport.Entry(plugin, error: error) }
            order = plan.order
        case let .allOrNothing(withdrawing):
            next.withdraw(withdrawing)
            order = plugins
        }
        var registered: [(plugin: LoadedPlugin, module: ModuleHandle)] = []
        var failed = FailedProviders()
        for plugin in order {
            let probed = registeredInProbe.contains(plugin.path) ? nil : published + registered.map(\.plugin)
            switch register(plugin, into: next, source: source, failed: failed, as: batch, probedAfter: probed) {
            case let .success(module):
                registered.append((plugin, module))
                outcome[plugin.path] = LoadReport.Entry(plugin, error: nil)
            case let .failure(error):
                failed.add(plugin.metadata)
                outcome[plugin.path] = LoadReport.Entry(plugin, error: error)
                if case .allOrNothing = batch {
                    let unstarted = registered.map {
                        StartedPlugin(name: $0.plugin.metadata.name, module: $0.module, keys: $0.plugin.metadata.providedStoreKeys)
                    }
                    return Staged(outcome: outcome, result: .failure(Failure(error: error, locator: next, unstarted: unstarted, started: [])))
                }
            }
        }
        next.setReadOnly(denyClone: false)
        let (started, dropped) = start?.run(registered, in: next, served: current) ?? ([], [])
        for (plugin, error) in dropped { outcome[plugin.path] = LoadReport.Entry(plugin, error: error) }
        if case .allOrNothing = batch, let failure = dropped.first {
            return Staged(outcome: outcome, result: .failure(Failure(error: failure.error, locator: next, unstarted: [], started: started)))
        }
        let droppedPaths = Set(dropped.map(\.plugin.path))
        let kept = registered.filter { !droppedPaths.contains($0.plugin.path) }
        var publication = Publication(locator: next, source: source, registered: kept.map(\.plugin), started: started)
        for (plugin, module) in kept { publication.settings[plugin.metadata.name] = module.services.settings }
        publication.modules = kept
        return Staged(outcome: outcome, result: .success(publication))
    }

    /// The order in which `plugins` (in discovery order) register into `locator`, and the plugins
    /// refused before any registration.
    private func plan(_ plugins: [LoadedPlugin], in locator: ServiceLocator) -> LoadPlan {
        // Only the keys the new plugins name are looked up, not every slot the locator has; in an
        // empty locator (a first load, often) none.
        if locator.slots.isEmpty { return LoadPlan(plugins) { _ in nil } }
        return LoadPlan(plugins) { key in locator.slotInfo(forKey: key).map { $0.origin ?? "host" } }
    }

    /// `plugin`'s module into `locator`, all or nothing; its registrar lends it a resolver of `source`. Refused at
    /// once if (planned) it requires a key of a plugin that `failed`, or (all or nothing) a key it
    /// provides is taken or one it requires is missing; with a probe, probed first after the plugins
    /// `probedAfter` names, unless that is nil.
    private func register(_ plugin: LoadedPlugin, into locator: ServiceLocator, source: ServiceSource,
                          failed: FailedProviders, as batch: Batch,
                          probedAfter probed: [LoadedPlugin]?) -> Result<ModuleHandle, PluginLoadError> {
        let unmet = switch batch {
        case .planned: failed.missingRequirement(of: plugin.metadata, failedTo: "register")
        case .allOrNothing: Self.unmet(plugin, in: locator)
        }
        if let unmet { return .failure(unmet) }
        if let probe, let probed, let failure = probedRegistration(of: plugin, after: probed, by: probe) {
            return .failure(failure)
        }
        return PluginRegistration.register(plugin, into: locator, source: source, logs: logs, settings: settings)
    }

    /// One plugin's module into `locator`, all or nothing; no probe (a probe child's own step).
    func registerUnprobed(_ plugin: LoadedPlugin, into locator: ServiceLocator, source: ServiceSource)
        -> Result<ModuleHandle, PluginLoadError> {
        PluginRegistration.register(plugin, into: locator, source: source, logs: logs, settings: settings)
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
}
