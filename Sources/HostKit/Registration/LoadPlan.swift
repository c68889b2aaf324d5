import PluginAPI

/// The order in which plugins register, and the plugins refused before any registration:
/// duplicate names, key conflicts, unmet requirements and requirement cycles.
///
/// Each provided key is hashed once, into `providerOf`; start-up with many services per plugin
/// spends its time on keys, so no step rebuilds a set of them.
struct LoadPlan {
    /// Plugins to register, each after the providers of the keys it requires.
    private(set) var order: [LoadedPlugin] = []
    /// Plugins refused, with the reason, in discovery order.
    private(set) var refused: [(plugin: LoadedPlugin, error: PluginLoadError)] = []

    /// Plans `plugins` (in discovery order); `existing` gives the origin of a key the locator has
    /// already, or nil.
    init(_ plugins: [LoadedPlugin], existing: (String) -> String?) {
        var accepted: [LoadedPlugin] = []
        var names: [String: String] = [:]
        // Key to the index in `accepted` of the plugin providing it.
        var providerOf: [String: Int] = [:]
        providerOf.reserveCapacity(plugins.reduce(0) { $0 + $1.metadata.provides.count })
        // The first plugin of a name, and the first provider of a key, wins; the later one is refused whole.
        for plugin in plugins {
            let meta = plugin.metadata
            if let reason = Self.malformation(of: meta) {
                refuse(plugin, .malformedMetadata(path: plugin.path, reason: reason))
                continue
            }
            if let first = names[meta.name] {
                refuse(plugin, .duplicatePlugin(name: meta.name, path: plugin.path, loadedFrom: first))
                continue
            }
            var claimed: [String] = []
            var refusal: PluginLoadError?
            for key in meta.providedStoreKeys {
                // Claimed with one hash of the key; a key claimed before is given back.
                if let index = providerOf.updateValue(accepted.count, forKey: key) {
                    if index == accepted.count {
                        // Its own claim (in `claimed`, given back below): the key is listed twice, and
                        // its service would be closed twice.
                        refusal = .malformedMetadata(path: plugin.path, reason: "'provides' lists key '\(key)' twice")
                    } else {
                        providerOf[key] = index
                        refusal = .keyConflict(key: key, plugin: meta.name, providedBy: accepted[index].metadata.name)
                    }
                } else {
                    claimed.append(key)
                    guard let owner = existing(key) else { continue }
                    refusal = .keyConflict(key: key, plugin: meta.name, providedBy: owner)
                }
                break
            }
            if let refusal {
                claimed.forEach { providerOf[$0] = nil }
                refuse(plugin, refusal)
            } else {
                names[meta.name] = plugin.path
                accepted.append(plugin)
            }
        }
        let kept = withRequirementsMet(accepted, providerOf: providerOf, existing: existing)
        order = ordered(kept.map { accepted[$0] }, providerOf: providerOf, kept: kept)
    }

    /// What is impossible in `meta` before its keys are claimed, or nil: an empty name or key, a
    /// required key listed twice, or one it provides itself. (A provided key listed twice is found as
    /// it is claimed.)
    static func malformation(of meta: PluginMetadata) -> String? {
        if meta.name.isEmpty { return "the plugin's name is empty" }
        if meta.providedStoreKeys.contains("") { return "'provides' lists an empty key" }
        if meta.requiredStoreKeys.contains("") { return "'requires' lists an empty key" }
        var seen: Set<String> = []
        if let twice = meta.requiredStoreKeys.first(where: { !seen.insert($0).inserted }) {
            return "'requires' lists key '\(twice)' twice"
        }
        if let own = meta.providedStoreKeys.first(where: seen.contains) {
            return "it requires key '\(own)', which it provides itself"
        }
        return nil
    }

    /// The indices of `plugins` left after dropping, until none is left to drop, those that require
    /// a key no remaining plugin and no existing slot provides.
    private mutating func withRequirementsMet(_ plugins: [LoadedPlugin], providerOf: [String: Int],
                                              existing: (String) -> String?) -> [Int] {
        var dropped: Set<Int> = []
        func isMet(_ key: String) -> Bool {
            if let index = providerOf[key] { return !dropped.contains(index) }
            return existing(key) != nil
        }
        while let index = plugins.indices.first(where: { index in
            !dropped.contains(index) && !plugins[index].metadata.requiredStoreKeys.allSatisfy(isMet)
        }) {
            dropped.insert(index)
            let plugin = plugins[index]
            let key = plugin.metadata.requiredStoreKeys.first { !isMet($0) } ?? ""
            let refusedProvider = refused.first { $0.plugin.metadata.providedStoreKeys.contains(key) }?.plugin.metadata.name
            let reason = refusedProvider.map { "its provider '\($0)' was refused" } ?? "no loaded plugin provides it"
            refuse(plugin, .missingRequirement(plugin: plugin.metadata.name, key: key, reason: reason))
        }
        return plugins.indices.filter { !dropped.contains($0) }
    }

    /// Providers before the plugins that require them; discovery order where there is a choice.
    /// `kept[i]` is the index in `providerOf` of `plugins[i]`.
    private mutating func ordered(_ plugins: [LoadedPlugin], providerOf: [String: Int], kept: [Int]) -> [LoadedPlugin] {
        let position = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1, $0) })
        // Positions each plugin waits for (providers within this batch only; older keys are there already).
        // (A plugin requiring its own key was refused as malformed: no plugin waits for itself.)
        let needs = plugins.map { plugin in
            Set(plugin.metadata.requiredStoreKeys.compactMap { providerOf[$0].flatMap { position[$0] } })
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
