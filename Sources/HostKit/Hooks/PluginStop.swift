@_spi(HostKit) import PluginAPI

/// Stopping plugins: each one's shutdown hook, in reverse start order, then the closing of what it
/// made. A shutdown, a retired old version, a step of a reload that was not swapped in, and a plugin
/// dropped at start all stop plugins this way.
enum PluginStop {
    /// Runs the shutdown hooks of `plugins` in reverse start order, each followed by the closing of
    /// its services that exist in `locator` and are closable, then closes what a later hook made;
    /// each hook and each close bounded by `timeout`. Without `runningHooks`, only closes (for plugins
    /// registered and never started). An instance that `served` serves (the locator published, when
    /// the plugins stopped are an old version or a refused new one) is not closed: a plugin registered
    /// again from its image may serve the same object (a static) from its new instance.
    static func run(_ plugins: [StartedPlugin], in locator: ServiceLocator, timeout: Duration,
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
}
