import Foundation
import PluginAPI

/// Loads plugins into a ``ServiceLocator`` and keeps the current, read-only locator.
///
/// ```swift
/// let host = PluginHost()
/// let report = host.load([.directory("/usr/lib/myapp/plugins")])
/// for problem in report.problems { print(problem) }
/// let greeter = try host.locator.tryService(key: Keys.greeter)
/// ```
///
/// Each ``load(_:)`` works on a clone of the current locator and swaps it in when done, so readers of
/// ``locator`` never see a half-loaded set, and plugins loaded before stay as they were.
public final class PluginHost: @unchecked Sendable {
    // @unchecked: `current` is read and written only under `currentLock`. NSLocks (pthread mutexes
    // underneath) rather than Synchronization.Mutex, so that ThreadSanitizer can see them.
    private var current: ServiceLocator
    private let currentLock = NSLock()
    /// Held for a whole load, so two loads cannot each clone the same locator and lose one's plugins.
    /// Readers of ``locator`` never wait for it.
    private let loading = NSLock()
    /// How plugin files are found and which are trusted.
    public let discovery: PluginDiscovery

    /// A host whose locator starts empty.
    public convenience init(discovery: PluginDiscovery = PluginDiscovery()) {
        self.init(start: ServiceLocator(), discovery: discovery)
    }

    /// A host whose locator starts as a clone of `base`, which holds services of the host itself
    /// (configuration, say) for plugins to use. Throws ``ServiceLocatorError/cloneDenied`` if `base`
    /// refuses to be cloned.
    public convenience init(base: ServiceLocator, discovery: PluginDiscovery = PluginDiscovery()) throws {
        self.init(start: try base.clone(), discovery: discovery)
    }

    private init(start: ServiceLocator, discovery: PluginDiscovery) {
        // The host's locators never deny cloning: each load works on a clone of the current one.
        start.setReadOnly(denyClone: false)
        current = start
        self.discovery = discovery
    }

    /// The current locator: read-only, with the services of every plugin loaded so far.
    public var locator: ServiceLocator { currentLock.withLock { current } }

    /// Finds, opens, orders and registers the plugins in `sources`, then publishes the new locator.
    /// Good plugins load even when others fail; the report says what happened to each file.
    ///
    /// With a `probe`, each file is first loaded in a child process; one that crashes or hangs there
    /// is reported (``PluginLoadError/probeFailed(path:reason:)``) and never loaded into this process.
    @discardableResult
    public func load(_ sources: [PluginSource], probe: PluginProbe? = nil) -> LoadReport {
        loading.withLock { loadSerially(sources, probe: probe) }
    }

    private func loadSerially(_ sources: [PluginSource], probe: PluginProbe?) -> LoadReport {
        let (candidates, problems) = discovery.discover(sources)
        var report = LoadReport()
        var opened: [LoadedPlugin] = []
        var outcome: [String: LoadReport.Entry] = [:]
        for candidate in candidates {
            if let failure = probe?.check(candidate) {
                outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: failure)
                continue
            }
            switch PluginLoader.load(candidate) {
            case let .success(plugin): opened.append(plugin)
            case let .failure(error):
                outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: error)
            }
        }
        let next: ServiceLocator
        do {
            next = try locator.clone()
        } catch {
            // Not expected: every locator this host publishes allows cloning. Nothing was registered.
            report.entries = candidates.map {
                LoadReport.Entry(path: $0.realPath, metadata: nil,
                                 error: .registrationFailed(plugin: $0.realPath, reason: "the host's locator: \(error)"))
            }
            return report
        }
        let existing = Dictionary(next.slots.map { ($0.key, $0.origin ?? "host") }, uniquingKeysWith: { first, _ in first })
        let plan = LoadPlan(opened, existing: existing)
        for (plugin, error) in plan.refused {
            outcome[plugin.path] = LoadReport.Entry(path: plugin.path, metadata: plugin.metadata, error: error)
        }
        var failedKeys: [String: String] = [:]
        for plugin in plan.order {
            let error = PluginRegistration.register(plugin, into: next, failedKeys: failedKeys)
            if error != nil { plugin.metadata.provides.forEach { failedKeys[$0] = plugin.metadata.name } }
            outcome[plugin.path] = LoadReport.Entry(path: plugin.path, metadata: plugin.metadata, error: error)
        }
        next.setReadOnly(denyClone: false)
        currentLock.withLock { current = next }
        report.entries = candidates.compactMap { outcome[$0.realPath] }
            + problems.map { LoadReport.Entry(path: $0.subject, metadata: nil, error: $0) }
        return report
    }

    /// Reads the header and metadata of one plugin file without registering anything.
    public static func inspect(_ path: String, discovery: PluginDiscovery = PluginDiscovery()) -> Result<PluginMetadata, PluginLoadError> {
        discovery.candidate(path).flatMap(PluginLoader.load).map(\.metadata)
    }
}
