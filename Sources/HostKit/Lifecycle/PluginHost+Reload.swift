internal import DynamicLoading
@_spi(HostKit) import PluginAPI

extension PluginHost {
    /// Scans the sources of every earlier ``load(_:probe:)`` again and brings the running host up to
    /// date, without a restart and without unloading code, deciding by plugin name. It ends where a
    /// first load of the files found now would, judged as that load would judge them, except that a
    /// served plugin whose new version is refused serves on, and one whose file is gone stays while
    /// the plugins served after the reload require it:
    ///
    /// - A plugin in a **new file** is added, with every check of a first load.
    /// - A plugin whose **file changed** (another file renamed over its path, or its name found in
    ///   another file while its old file is gone) is **upgraded**: the new version is loaded beside
    ///   the old, registered into a clone of the published locator taking over exactly the old
    ///   version's keys (a key it adds must be free), started, and swapped in; then the old version
    ///   is stopped. The plugins that require it, directly or through others, are registered again
    ///   from their own files and started with it, so that no service of theirs keeps an object of
    ///   the old version (``ReloadReport/Action/restarted``). Changes linked by their keys go in one
    ///   step, providers first: a plugin and one that requires it, both with a new version; a new
    ///   provider and the new version of a plugin that now requires it.
    /// - A plugin whose **file is gone** is withdrawn: its services removed, then stopped. One that
    ///   the plugins served after the reload still require (by their new versions' requirements) is
    ///   kept, named in the report.
    ///
    /// A plugin placed in a **process of its own** (``PluginProcesses``) is upgraded the same way: the
    /// new file is loaded by a new process, whose proxies the slots hand out from the swap on; the old
    /// process answers the calls it has (at most its call timeout), then runs the old version's
    /// shutdown hook and ends. A plugin of a process of its own that requires an upgraded plugin is
    /// restarted in a new process (its process starts the one instance it holds once). A withdrawn
    /// one's process ends once stopped, and a process opened for a file the reload then leaves out
    /// (refused, or never swapped in) ends with it.
    ///
    /// Each step is all or nothing: a new version that is refused by any check, fails to register or
    /// to start (or a plugin of its step does) leaves the old one serving, and what it started is
    /// stopped again.
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
        let report = loading.withLock { () -> ReloadReport in
            let (sources, published, isShutDown) = state.withLock { ($0.sources, $0.published, $0.isShutDown) }
            guard !isShutDown else {
                var report = ReloadReport()
                report.afterShutdown = true
                return report
            }
            let pipeline = makePipeline(probe: probe)
            defer { pipeline.finish() }
            return ReloadRun(host: self, limits: .init(drain: drainTimeout, hook: hookTimeout))
                .run(sources, published: published, with: pipeline)
        }
        metrics?.record(report)
        return report
    }
}

extension PluginHost: PluginProcessOwner {
    /// Withdraws the plugin served by the process `peer`, which its restart policy gave up on, with
    /// the plugins that require it (``ReloadRun/withdrawPlugin(servedBy:because:)``), serialized
    /// with loads, reloads and shutdowns; tells ``processReport`` what was withdrawn, as a reload
    /// report's lines.
    func processWithdrawn(peer: String, because reason: String) {
        let report = loading.withLock {
            ReloadRun(host: self, limits: .init(drain: .seconds(10), hook: .seconds(5))).withdrawPlugin(servedBy: peer, because: reason)
        }
        guard let report else { return }
        for line in report.entries.map(\.summary) + report.stopped.lines { processReport(line) }
    }
}

extension PluginHost: ReloadingHost {
    var publishedPlugins: [LoadedPlugin] { state.withLock { $0.published } }

    var isShutdownAsked: Bool { shutdownsPending.withLock { $0 > 0 } }

    func servedPlugin(named name: String) -> (plugin: LoadedPlugin, settings: PluginSettings?)? {
        state.withLock { state in
            state.published.first { $0.metadata.name == name }.map { ($0, state.settings[name]) }
        }
    }

    func replacePublished(_ plugins: [LoadedPlugin]) {
        state.withLock { state in
            for plugin in plugins {
                if let index = state.published.firstIndex(where: { $0.metadata.name == plugin.metadata.name }) {
                    state.published[index] = plugin
                }
            }
        }
    }
}
