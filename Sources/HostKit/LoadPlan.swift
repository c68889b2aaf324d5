import PluginAPI

/// The order in which plugins register, and the plugins refused before any registration:
/// duplicate names, key conflicts, unmet requirements and requirement cycles.
struct LoadPlan {
    /// Plugins to register, each after the providers of the keys it requires.
    private(set) var order: [LoadedPlugin] = []
    /// Plugins refused, with the reason, in discovery order.
    private(set) var refused: [(plugin: LoadedPlugin, error: PluginLoadError)] = []

    /// Plans `plugins` (in discovery order) for a locator whose keys are `existing` (key to origin).
    init(_ plugins: [LoadedPlugin], existing: [String: String]) {
        var accepted: [LoadedPlugin] = []
        var names: [String: String] = [:]
        var providers = existing
        // The first plugin of a name, and the first provider of a key, wins; the later one is refused whole.
        for plugin in plugins {
            let meta = plugin.metadata
            if let first = names[meta.name] {
                refuse(plugin, .duplicatePlugin(name: meta.name, path: plugin.path, loadedFrom: first))
            } else if let key = meta.provides.first(where: { providers[$0] != nil }), let owner = providers[key] {
                refuse(plugin, .keyConflict(key: key, plugin: meta.name, providedBy: owner))
            } else {
                names[meta.name] = plugin.path
                meta.provides.forEach { providers[$0] = meta.name }
                accepted.append(plugin)
            }
        }
        accepted = withRequirementsMet(accepted, existing: existing)
        order = ordered(accepted)
    }

    /// Drops, until none is left to drop, the plugins that require a key nobody accepted provides.
    private mutating func withRequirementsMet(_ plugins: [LoadedPlugin], existing: [String: String]) -> [LoadedPlugin] {
        var remaining = plugins
        while true {
            let provided = Set(existing.keys).union(remaining.flatMap(\.metadata.provides))
            guard let index = remaining.firstIndex(where: { !$0.metadata.requires.allSatisfy(provided.contains) }) else {
                return remaining
            }
            let plugin = remaining.remove(at: index)
            let key = plugin.metadata.requires.first { !provided.contains($0) } ?? ""
            let refusedProvider = refused.first { $0.plugin.metadata.provides.contains(key) }?.plugin.metadata.name
            let reason = refusedProvider.map { "its provider '\($0)' was refused" } ?? "no loaded plugin provides it"
            refuse(plugin, .missingRequirement(plugin: plugin.metadata.name, key: key, reason: reason))
        }
    }

    /// Providers before the plugins that require them; discovery order where there is a choice.
    private mutating func ordered(_ plugins: [LoadedPlugin]) -> [LoadedPlugin] {
        var providerOf: [String: Int] = [:]
        for (index, plugin) in plugins.enumerated() {
            plugin.metadata.provides.forEach { providerOf[$0] = index }
        }
        // Indices each plugin waits for (providers within this batch only; older keys are there already).
        let needs = plugins.enumerated().map { index, plugin in
            Set(plugin.metadata.requires.compactMap { providerOf[$0] }.filter { $0 != index })
        }
        var done: Set<Int> = []
        var result: [LoadedPlugin] = []
        while let next = plugins.indices.first(where: { !done.contains($0) && needs[$0].isSubset(of: done) }) {
            done.insert(next)
            result.append(plugins[next])
        }
        for index in plugins.indices where !done.contains(index) {
            let name = plugins[index].metadata.name
            refuse(plugins[index], .requirementCycle(plugin: name, chain: cycle(from: index, needs: needs, done: done)
                .map { plugins[$0].metadata.name }))
        }
        return result
    }

    /// Follows unmet needs from `start` until a plugin repeats: the cycle it is in or leads to.
    private func cycle(from start: Int, needs: [Set<Int>], done: Set<Int>) -> [Int] {
        var path = [start]
        var current = start
        while let next = needs[current].subtracting(done).min() {
            if let seen = path.firstIndex(of: next) { return Array(path[seen...]) + [next] }
            path.append(next)
            current = next
        }
        return path
    }

    private mutating func refuse(_ plugin: LoadedPlugin, _ error: PluginLoadError) {
        refused.append((plugin, error))
    }
}
