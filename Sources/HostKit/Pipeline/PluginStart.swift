@_spi(HostKit) import PluginAPI

/// The last step of a load's stage (``LoadPipeline``): the start hooks of the plugins it
/// registered, in dependency order, each on a thread of its own and bounded by ``timeout``.
struct PluginStart: Sendable {
    /// How long one plugin's start hook may take before it counts as failed.
    let timeout: Duration
    /// True once a shutdown is asked for: no more hooks run, and the one running is cancelled.
    let isStopping: @Sendable () -> Bool
    /// Told how each start hook ended, and how long it took; nil: nothing is told.
    var metrics: (any PluginMetrics)?

    /// Runs the start hooks of `plugins` (in dependency order), each with the resolver its registrar
    /// lent it, which reads `locator` while the load runs;
    /// returns the plugins that started and the ones dropped: a failed start, or a requirement
    /// provided by a dropped plugin. A dropped plugin's slots are withdrawn from `locator` before the
    /// next hook runs, and what it made is closed, except what `served` (the published locator) serves.
    func run(_ plugins: [(plugin: LoadedPlugin, module: ModuleHandle)], in locator: ServiceLocator,
             served: ServiceLocator)
        -> (started: [StartedPlugin], dropped: [(plugin: LoadedPlugin, error: PluginLoadError)]) {
        var started: [StartedPlugin] = []
        var dropped: [(plugin: LoadedPlugin, error: PluginLoadError)] = []
        var failed = FailedProviders()
        for (plugin, handle) in plugins {
            let meta = plugin.metadata
            let error: PluginLoadError?
            if let missing = failed.missingRequirement(of: meta, failedTo: "start") {
                error = missing
            } else if isStopping() {
                error = .startFailed(plugin: meta.name, reason: "was not run: the host is shutting down")
            } else {
                let begin = ContinuousClock.now
                let outcome = HookRunner.run(name: "start \(meta.name)", timeout: timeout, stop: isStopping) {
                    try await handle.module.start(services: handle.services)
                }
                metrics?.hookEnded(plugin: meta.name, hook: "start", outcome: outcome, duration: begin.duration(to: .now))
                error = outcome.isFinished ? nil : .startFailed(plugin: meta.name, reason: outcome.description)
            }
            guard let error else {
                started.append(StartedPlugin(name: meta.name, module: handle, keys: meta.providedStoreKeys))
                continue
            }
            failed.add(meta)
            // What it made is closed, as at shutdown: taken before its slots go. Not what the
            // published locator serves (the same object, from a plugin registered again).
            var seen = PluginStop.servedInstances(in: served)
            let keys = meta.providedStoreKeys
            let closables = PluginStop.existingClosables(keys, in: locator, seen: &seen)
            // At once, from the locator every resolver of this load reads: the hooks that run
            // after this one cannot reach it either.
            locator.withdraw(keys)
            let unclosed = closables.compactMap { key, closable -> String? in
                let outcome = HookRunner.run(name: "close \(key)", timeout: timeout) { try await closable.close() }
                return outcome.isFinished ? nil : "closing \(key) \(outcome)"
            }
            dropped.append((plugin, unclosed.isEmpty ? error : error.adding(unclosed.joined(separator: "; "))))
        }
        return (started, dropped)
    }
}
