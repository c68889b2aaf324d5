internal import DynamicLoading
import Foundation
@_spi(HostKit) import PluginAPI

/// The probe's child side: it runs the pipeline's phases that open and register a plugin, so it
/// lives with the pipeline; the parent's side (``PluginProbe``, in `Probe/`) runs it as a program.
extension PluginProbe {
    /// What the child runs: the phases of `LoadPipeline` that open and register a plugin, for the
    /// plugin at `path` into a clone of `base`, after the providers the parent named
    /// (`check(_:after:)`); writes its verdict and returns the exit status: 0 if the plugin
    /// registered or opened, 3 (with the reason on stderr) if it was refused. A host whose plugins
    /// require services of its own base locator passes that same base here, or those plugins cannot
    /// register in the child; one whose plugins read settings passes the same `settings` (a
    /// ``PluginSettingsFile`` of the same file), or they register here with their settings unset, and
    /// a plugin that would crash on a value of the operator's is not caught.
    public static func probe(_ path: String, discovery: PluginDiscovery = PluginDiscovery(),
                             base: ServiceLocator = ServiceLocator(), settings: (any PluginSettingsSource)? = nil) -> Int32 {
        // Out of the environment before the plugin runs: `getenv` in the plugin finds nothing. This
        // keeps a careless exit from passing; a plugin set on forging a verdict can still read the
        // process's initial environment (/proc/self/environ), as it can do anything the host can.
        let environment = ProcessInfo.processInfo.environment
        let token = environment[tokenVariable] ?? ""
        let providers = environment[providersVariable].flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        let checked = environment[checkedVariable].flatMap { try? JSONDecoder().decode([PluginCandidate].self, from: Data($0.utf8)) } ?? []
        let folder = environment[folderVariable]
        for variable in [tokenVariable, providersVariable, checkedVariable, folderVariable] {
            Posix.removeEnvironment(variable)
        }
        // A folder of its own inside its parent's load's: removed with it, also when the plugin kills
        // this child.
        var discovery = discovery
        if let folder, FileStatus(folder)?.isDirectory == true { discovery.shadowFolder = folder }
        let pipeline = LoadPipeline(discovery: discovery, settings: settings)
        defer { pipeline.finish() }
        let checkedFiles = Dictionary(checked.map { ($0.realPath, $0) }) { first, _ in first }
        // A file the parent's discovery checked is opened as it was checked (its copy, in the folder
        // the parent made and named); another, or one whose copy went with an earlier load (a
        // provider loaded before) or names another folder, is discovered here.
        let open = { (path: String) in
            let checked = checkedFiles[path].flatMap { candidate in
                (candidate.shadowRoot == nil || candidate.shadowRoot == folder) && FileStatus(candidate.image) != nil ? candidate : nil
            }
            return (checked.map { .success($0) } ?? pipeline.discover(file: path)).flatMap(pipeline.openUnprobed)
        }
        let verdict: Verdict
        switch open(path) {
        case let .failure(error):
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            verdict = .refused
        case let .success(plugin):
            verdict = register(plugin, after: providers.map(open), with: pipeline, base: base)
        }
        FileHandle.standardOutput.write(Data("\(token) \(verdict.rawValue)\n".utf8))
        return verdict == .refused ? cleanFailureStatus : 0
    }

    /// Registers the `providers` that opened, in their order, then `plugin`, into a clone of `base`,
    /// as a load does.
    private static func register(_ plugin: LoadedPlugin, after providers: [Result<LoadedPlugin, PluginLoadError>],
                                 with pipeline: LoadPipeline, base: ServiceLocator) -> Verdict {
        guard let locator = try? base.clone() else {
            FileHandle.standardError.write(Data("the base locator refuses to be cloned\n".utf8))
            return .refused
        }
        let source = ServiceSource(locator)
        // A provider that fails here failed the same way in its own probe: the plugin's requirement
        // is then unmet, as in the real load.
        for case let .success(provider) in providers {
            _ = pipeline.registerUnprobed(provider, into: locator, source: source)
        }
        let unmet = plugin.metadata.requiredStoreKeys.contains { locator.slotInfo(forKey: $0) == nil }
        if unmet { return .opened }
        if case let .failure(error) = pipeline.registerUnprobed(plugin, into: locator, source: source) {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return .refused
        }
        awaitAsyncAtOneFactories(of: plugin, in: locator)
        return .registered
    }

    /// Waits until every `atOne` async factory of `plugin` has finished: a registration started
    /// them, and the verdict covers what the real load runs at registration, also what they do a
    /// moment later (crash, say). Bounded by the parent's probe timeout, which kills this child.
    private static func awaitAsyncAtOneFactories(of plugin: LoadedPlugin, in locator: ServiceLocator) {
        let keys = plugin.metadata.providedStoreKeys.filter { key in
            locator.slotInfo(forKey: key).map { $0.isAsync && $0.mode == .atOne } ?? false
        }
        guard !keys.isEmpty else { return }
        _ = HookRunner.run(name: "probe atOne factories", timeout: .seconds(86_400)) {
            // A failure is the slot's outcome, kept as the real load keeps it: not the probe's verdict.
            for key in keys { _ = try? await locator.anyService(storeKey: key) }
        }
    }
}
