internal import DynamicLoading

/// What a reload does to each plugin, decided from the files found before anything changes.
///
/// A plugin is known by its name. Its file is unchanged if discovery finds its real path with the
/// identity it had when it was loaded (``FileIdentity``); then it is not opened again. Otherwise:
/// - a plugin of a new name is to be **added**;
/// - a plugin of a served name is to be an **upgrade** of it, unless the served one's file is still
///   there, unchanged (then two files hold the plugin: the new one is refused, the served one **kept**);
/// - a served plugin whose name no file holds any more is to be **withdrawn**, unless a file refused
///   now lies at its path or a new file refused before its name could be read lies in its folder
///   (then it is **kept**: that file may be its next version), or its folder is refused (untrusted
///   now, say: not gone);
/// - a served plugin's image found under another path (its file moved, or linked) is the same plugin.
///
/// Which of those changes are made is judged against the result (``ReloadTarget``): a new version
/// or new plugin that the result refuses is not, and a plugin whose file is gone stays while the
/// result requires it (``PluginLoadError/stillRequired(plugin:requiredBy:)``). The changes made go
/// in steps (``ReloadStep``), providers first.
struct ReloadPlan {
    /// The upgrades and additions, in steps (``ReloadStep``), providers first.
    private(set) var steps: [ReloadStep] = []
    /// Every plugin served after the reload, as planned: in registration order, providers first.
    private(set) var order: [LoadedPlugin] = []
    /// Plugins to withdraw before the steps (nothing served now requires them), in publication order;
    /// withdrawn together: a key one gives up may pass to a plugin of a step.
    private(set) var withdrawnFirst: [LoadedPlugin] = []
    /// Plugins to withdraw after the steps (a plugin served now requires them; its new version, or
    /// nothing in the result, does not), each once nothing served then requires it.
    private(set) var withdrawnLast: [LoadedPlugin] = []
    /// The `kept` and `refused` outcomes decided here.
    private(set) var decided: [ReloadReport.Entry] = []
    /// Served plugins whose image was found at another path (the file moved, or was linked there):
    /// unchanged, served on, known by their new path from now on.
    private(set) var moved: [LoadedPlugin] = []

    /// `published`: the plugins served, in publication order. `unchanged`: the real paths of their
    /// files found unchanged. `opened`: the other files that hold a plugin (in discovery order);
    /// `refused`: the other files, with why each was refused, and whether the file is new (not
    /// refused at an earlier load or reload); `problems`: what discovery refused.
    init(published: [LoadedPlugin], unchanged: Set<String>, opened: [LoadedPlugin],
         refused: [(path: String, error: PluginLoadError, isNew: Bool)], problems: [PluginLoadError],
         existing: (String) -> String?) {
        var staying = Set(published.filter { unchanged.contains($0.path) }.map(\.metadata.name))
        let (upgraded, changes) = sort(opened, published: published, staying: &staying)
        keepWhereRefused(refused.map { ($0.path, $0.error) } + problems.map { ($0.subject, $0) }, published: published,
                         upgraded: upgraded, staying: &staying)
        let leaving = leaving(published, refused: refused, upgraded: upgraded, staying: staying)
        // The result, judged as a first load of these files would be; the served plugins by their path now.
        let movedByName = Dictionary(moved.map { ($0.metadata.name, $0) }) { first, _ in first }
        let target = ReloadTarget(published: published.map { movedByName[$0.metadata.name] ?? $0 }, leaving: leaving,
                                  changes: changes, existing: existing)
        decided += target.decided
        order = target.order
        steps = ReloadStep.steps(of: target.changes, published: published, order: target.order)
        // First those no plugin served now requires; the others once the steps are done.
        var first = target.withdrawals
        while let index = first.indices.first(where: { !Self.users(of: first[$0], among: published, leaving: first).isEmpty }) {
            first.remove(at: index)
        }
        let firstNames = Set(first.map(\.metadata.name))
        withdrawnFirst = first
        withdrawnLast = target.withdrawals.filter { !firstNames.contains($0.metadata.name) }
    }

    /// Each plugin `opened` sorted by its name: a new plugin, a served image under another path
    /// (``moved``, `staying`), a second file of a plugin served on (its served version `kept`), a
    /// second new version (`refused`), or an upgrade. Returns the upgrades by name, and the changes.
    private mutating func sort(_ opened: [LoadedPlugin], published: [LoadedPlugin],
                               staying: inout Set<String>) -> (upgraded: [String: LoadedPlugin], changes: [ReloadTarget.Change]) {
        let byName = Dictionary(published.map { ($0.metadata.name, $0) }) { first, _ in first }
        var upgraded: [String: LoadedPlugin] = [:]
        var changes: [ReloadTarget.Change] = []
        for plugin in opened {
            let name = plugin.metadata.name
            guard let served = byName[name] else {
                changes.append((nil, plugin))
                continue
            }
            if plugin.image != nil, plugin.image == served.image {
                // The served image itself, under another path: no version to change.
                if staying.insert(name).inserted { moved.append(plugin) }
                continue
            }
            if staying.contains(name) {
                decided.append(ReloadReport.Entry(.kept, served, error: .duplicatePlugin(name: name, path: plugin.path,
                                                                                          loadedFrom: served.path)))
            } else if let first = upgraded[name] {
                decided.append(ReloadReport.Entry(.refused, plugin, error: .duplicatePlugin(name: name, path: plugin.path,
                                                                                             loadedFrom: first.path)))
            } else {
                upgraded[name] = plugin
                changes.append((served, plugin))
            }
        }
        return (upgraded, changes)
    }

    /// The served plugins that a file or folder refused now (`failures`, by path) keeps: a file
    /// refused at a served plugin's path (written over, say) keeps that version serving; a folder
    /// refused (now untrusted, say), not gone, keeps the plugins found in it. Each `kept` is decided
    /// here and joins `staying`; a refusal that keeps nothing is decided `refused`.
    private mutating func keepWhereRefused(_ failures: [(path: String, error: PluginLoadError)], published: [LoadedPlugin],
                                           upgraded: [String: LoadedPlugin], staying: inout Set<String>) {
        let servedAt = Dictionary(published.flatMap { plugin in
            [plugin.path, plugin.candidate?.path].compactMap { $0 }.map { ($0, plugin) }
        }) { first, _ in first }
        for (path, error) in failures {
            if let served = servedAt[path], upgraded[served.metadata.name] == nil {
                // A file given by its path and gone now is gone: withdrawn below, which says so.
                if error == .notFound(path: path) { continue }
                staying.insert(served.metadata.name)
                decided.append(ReloadReport.Entry(.kept, served, error: error))
                continue
            }
            let folder = Self.withoutTrailingSlashes(path) + "/"
            let inside = published.filter { plugin in
                guard case .notFound = error else {
                    return [plugin.path, plugin.candidate?.path].contains { $0?.hasPrefix(folder) == true }
                        && upgraded[plugin.metadata.name] == nil && !staying.contains(plugin.metadata.name)
                }
                return false
            }
            if inside.isEmpty { decided.append(ReloadReport.Entry(refused: error, path: path)) }
            for plugin in inside {
                staying.insert(plugin.metadata.name)
                decided.append(ReloadReport.Entry(.kept, plugin, error: error))
            }
        }
    }

    /// The names of the served plugins that are gone: neither found nor upgraded. One is kept
    /// (decided here) while a new file in its folder was refused before its name could be read: it
    /// may be the next version, under a new name.
    private mutating func leaving(_ published: [LoadedPlugin], refused: [(path: String, error: PluginLoadError, isNew: Bool)],
                                  upgraded: [String: LoadedPlugin], staying: Set<String>) -> Set<String> {
        var newlyRefusedIn: [String: PluginLoadError] = [:]
        for (path, error, isNew) in refused where isNew && newlyRefusedIn[Paths.folder(of: path)] == nil {
            newlyRefusedIn[Paths.folder(of: path)] = error
        }
        var leaving: Set<String> = []
        for plugin in published where !staying.contains(plugin.metadata.name) && upgraded[plugin.metadata.name] == nil {
            if let error = newlyRefusedIn[Paths.folder(of: plugin.path)] {
                decided.append(ReloadReport.Entry(.kept, plugin, error: error))
            } else {
                leaving.insert(plugin.metadata.name)
            }
        }
        return leaving
    }

    /// `path` without the slashes at its end (`/srv/plugins/` as a source names `/srv/plugins`).
    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// The names of the plugins of `published`, not `leaving`, that require a key `plugin` provides.
    static func users(of plugin: LoadedPlugin, among published: [LoadedPlugin], leaving: [LoadedPlugin]) -> [String] {
        let keys = Set(plugin.metadata.providedStoreKeys)
        let gone = Set(leaving.map(\.metadata.name))
        return published.filter { other in
            !gone.contains(other.metadata.name) && other.metadata.requiredStoreKeys.contains(where: keys.contains)
        }.map(\.metadata.name)
    }
}
