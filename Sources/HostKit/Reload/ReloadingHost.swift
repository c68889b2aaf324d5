@_spi(HostKit) import PluginAPI

/// What a reload (``ReloadRun``) reads and changes of the host it runs in: ``PluginHost``
/// implements it, in the room above. The host keeps the state, the locks and the swap; a reload
/// decides what to swap.
protocol ReloadingHost: AnyObject, Sendable {
    /// The published locator.
    var locator: ServiceLocator { get }
    /// The plugins whose slots the published locator holds, in registration order.
    var publishedPlugins: [LoadedPlugin] { get }
    /// The published plugin `name`, with the settings lent to it; nil if none is published so.
    func servedPlugin(named name: String) -> (plugin: LoadedPlugin, settings: PluginSettings?)?
    /// Each of `plugins` in place of the published plugin of its name: the same plugin, found in
    /// another file (its old file gone).
    func replacePublished(_ plugins: [LoadedPlugin])
    /// Publishes what a stage staged, the plugins of `replacing` leaving it; returns the locator
    /// replaced and the started plugins of `replacing`, in start order: to be stopped.
    @discardableResult
    func publish(_ publication: LoadPipeline.Publication, replacing names: Set<String>) -> (replaced: ServiceLocator, retiring: [StartedPlugin])
    /// True while a shutdown is asked for: a reload then waits for no reader of an old version.
    var isShutdownAsked: Bool { get }
}
