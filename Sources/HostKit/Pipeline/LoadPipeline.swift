internal import DynamicLoading
@_spi(HostKit) import PluginAPI

/// The phases that make plugin files into services, in the order they run, each a step of its own:
///
/// 1. ``discover(_:)``: sources become candidate files: absolute real paths of regular files that
///    only this user or root can change, nor the folders and symlinks on the way (``PathTrust``);
///    each file is read once for its ELF headers (``ELFCheck``) and its toolchain
///    (``CompilerIdentity``). (``PluginDiscovery``)
/// 2. ``open(_:)``: the libraries the file would bring are found and checked (``LibraryClosure``),
///    the file is opened (``DynamicLibrary``), the header its entry returns is read
///    (``PluginHeader``) and the library versions it records are checked (``LibraryCheck``); only
///    then is its descriptor read. Once per file and process. (``PluginLoader``)
/// 3. ``plan(_:in:)``: names, keys and requirements; providers before the plugins requiring them.
///    (``LoadPlan``)
/// 4. ``register(_:into:services:failed:)``: each module into the locator being built, all or nothing,
///    its declared keys only. (``PluginRegistration``)
/// 5. Start hooks, in dependency order: in the host only (``PluginHost``).
///
/// ``PluginHost`` runs every phase for a load. A ``PluginProbe`` child runs phases 2 and 4 for the
/// file it probes and for the providers registered before it, on the candidates the host's
/// discovery checked: one pipeline, two processes.
struct LoadPipeline {
    /// How files are found and which are trusted.
    let discovery: PluginDiscovery
    /// This load's folder of copies (``ShadowFolder``), or why it has none: then nothing loads.
    let shadow: Result<ShadowFolder, PluginLoadError>

    /// A pipeline for one load, with a new folder for its copies in `discovery`'s
    /// ``PluginDiscovery/shadowFolder``. Call ``finish()`` when the load has opened its plugins.
    init(discovery: PluginDiscovery) {
        self.discovery = discovery
        shadow = ShadowFolder.make(in: discovery.shadowFolder).mapError(PluginLoadError.init)
    }

    /// Phase 1: the candidate files of `sources`, each once, and what was wrong with the rest.
    func discover(_ sources: [PluginSource]) -> (candidates: [PluginCandidate], problems: [PluginLoadError]) {
        switch shadow {
        case let .success(shadow): discovery.discover(sources, into: shadow)
        case let .failure(problem): ([], [problem])
        }
    }

    /// Phase 1 for one file given by its path.
    func discover(file path: String) -> Result<PluginCandidate, PluginLoadError> {
        shadow.flatMap { discovery.candidate(path, into: $0) }
    }

    /// Removes this load's copies (what was mapped stays mapped). The load's files are opened by now.
    func finish() {
        if case let .success(shadow) = shadow { shadow.remove() }
    }

    /// Phase 2: the plugin in the candidate's file, or why it is refused.
    func open(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginLoadError> {
        PluginLoader.load(candidate)
    }

    /// Phase 2, for showing a plugin: also what a plugin refused for its library versions says of itself.
    func inspect(_ candidate: PluginCandidate) -> PluginInspection {
        PluginLoader.inspect(candidate)
    }

    /// Phase 3: the order in which `plugins` (in discovery order) register into `locator`, and the
    /// plugins refused before any registration.
    func plan(_ plugins: [LoadedPlugin], in locator: ServiceLocator) -> LoadPlan {
        // Only the keys the new plugins name are looked up, not every slot the locator has; in an
        // empty locator (a first load, often) none.
        if locator.slots.isEmpty { return LoadPlan(plugins) { _ in nil } }
        return LoadPlan(plugins) { key in locator.slotInfo(forKey: key).map { $0.origin ?? "host" } }
    }

    /// Phase 4: `plugin`'s module into `locator`, all or nothing; its registrar lends it `services`.
    /// Refused at once if it requires a key of a plugin that `failed`.
    func register(_ plugin: LoadedPlugin, into locator: ServiceLocator, services: ServiceResolver,
                  failed: FailedProviders = FailedProviders()) -> Result<ModuleHandle, PluginLoadError> {
        PluginRegistration.register(plugin, into: locator, services: services, failed: failed)
    }
}
