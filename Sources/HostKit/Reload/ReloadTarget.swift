import PluginAPI

/// What a reload ends with: the plugins a first load of the files found now would serve (planned as
/// ``LoadPlan`` plans a first load), except that a served plugin whose new version is refused serves
/// on (`kept`), and a served plugin whose file is gone stays while the result still requires it.
///
/// Found by planning the result and, while the plan refuses a plugin, changing one decision and
/// planning again (each decision is taken once, so this ends), so that as few exceptions as can be
/// are made: a plugin missing a key of a served plugin whose file is gone keeps that plugin serving;
/// one missing a key that a served provider's new version dropped, and that needed it before, keeps
/// the provider's served version; else a refused new version gives way to the served one, and a
/// refused new plugin is left out. Served plugins come first in each plan, then new versions, then
/// new plugins: a key a plugin serving on holds is never lost to a new version of another plugin,
/// nor to a new plugin. Every decision is judged against the result (the new versions'
/// requirements), not against the plugins served before.
struct ReloadTarget {
    /// One change a reload may make: a new version (`old` is the served one) or a new plugin (`old` nil).
    typealias Change = (old: LoadedPlugin?, new: LoadedPlugin)

    /// Every plugin served after the reload, in the order a first load would register them (providers first).
    private(set) var order: [LoadedPlugin] = []
    /// The changes in the result, in discovery order.
    private(set) var changes: [Change] = []
    /// Served plugins not in the result, in publication order.
    private(set) var withdrawals: [LoadedPlugin] = []
    /// New versions refused (`kept`), new plugins refused (`refused`) and plugins whose file is gone
    /// kept because the result requires them (`kept`, ``PluginLoadError/stillRequired(plugin:requiredBy:)``),
    /// in the order decided.
    private(set) var decided: [ReloadReport.Entry] = []

    /// `published`: the plugins served, in publication order; `leaving`: the names of those whose file
    /// is gone; `changes`: new versions and new plugins, in discovery order; `existing`: the origin
    /// of a key the host serves that no plugin provides (the host's own services), or nil.
    init(published: [LoadedPlugin], leaving: Set<String>, changes: [Change], existing: (String) -> String?) {
        let start = Choices(gone: leaving, replacing: Dictionary(changes.compactMap { change in
            change.old.map { ($0.metadata.name, change.new) }
        }) { first, _ in first })
        let settled = Self.settle(start, published: published, changes: changes, existing: existing, lookingAhead: true)
        order = settled.order
        decided = settled.decided
        self.changes = changes.filter(settled.wants)
        withdrawals = published.filter { settled.gone.contains($0.metadata.name) }
    }

    /// One decision that changes the plan.
    private enum Decision {
        /// The new version or new plugin is refused.
        case refuseNew(LoadedPlugin, PluginLoadError)
        /// The served plugin serves on, in place of its new version, or though its file is gone.
        case keepServed(LoadedPlugin, PluginLoadError)
    }

    /// The decisions taken so far.
    private struct Choices {
        /// The served plugins that go.
        var gone: Set<String>
        /// Served name to its new version, while that is still wanted.
        var replacing: [String: LoadedPlugin]
        /// The files of the new plugins refused (two files may hold one new name).
        var refusedNew: Set<String> = []
        var decided: [ReloadReport.Entry] = []
        /// The last plan's order.
        var order: [LoadedPlugin] = []

        func wants(_ change: Change) -> Bool {
            change.old == nil ? !refusedNew.contains(change.new.path) : replacing[change.new.metadata.name] != nil
        }

        mutating func take(_ decision: Decision, published: [LoadedPlugin]) {
            switch decision {
            case let .refuseNew(plugin, error):
                if let old = published.first(where: { $0.metadata.name == plugin.metadata.name }) {
                    replacing[plugin.metadata.name] = nil
                    decided.append(ReloadReport.Entry(.kept, old, error: error))
                } else {
                    refusedNew.insert(plugin.path)
                    decided.append(ReloadReport.Entry(.refused, plugin, error: error))
                }
            case let .keepServed(old, error):
                replacing[old.metadata.name] = nil
                gone.remove(old.metadata.name)
                decided.append(ReloadReport.Entry(.kept, old, error: error))
            }
        }
    }

    /// Plans and decides until the plan refuses nothing a decision changes. Where the decision is
    /// which plugin of a requirement cycle to refuse, `lookingAhead` tries each (settling the rest
    /// without looking ahead again) and takes the one that ends with the fewest exceptions.
    private static func settle(_ choices: Choices, published: [LoadedPlugin], changes: [Change],
                               existing: (String) -> String?, lookingAhead: Bool) -> Choices {
        var choices = choices
        while true {
            let served = published.filter { !choices.gone.contains($0.metadata.name) && choices.replacing[$0.metadata.name] == nil }
            // New versions before new plugins: a plugin serving on keeps its keys against a new one.
            let wanted = changes.filter { $0.old != nil && choices.wants($0) }.map(\.new)
                + changes.filter { $0.old == nil && choices.wants($0) }.map(\.new)
            let plan = LoadPlan(served + wanted, existing: existing)
            choices.order = plan.order
            let options = decisions(for: plan.refused, newNames: Set(wanted.map(\.metadata.name)), planned: served + wanted,
                                    published: published, replacing: choices.replacing, gone: choices.gone)
            guard var decision = options.first else { return choices }
            if lookingAhead, options.count > 1 {
                let outcomes = options.map { option in
                    var trial = choices
                    trial.take(option, published: published)
                    return settle(trial, published: published, changes: changes, existing: existing, lookingAhead: false).decided.count
                }
                decision = options[outcomes.indices.min { outcomes[$0] < outcomes[$1] } ?? 0]
            }
            choices.take(decision, published: published)
        }
    }

    /// The next decision for a plan that refused `refused` (in the plan's order), or the options for
    /// it, best first; none if no decision changes the plan. First, for a plugin that misses a key a served plugin gave: that plugin stays if
    /// its file is gone; its new version, which dropped the key, is refused if the plugin missing it
    /// serves on or required the key before too (else the plugin's own new version is refused, below).
    /// Then a new plugin or version refused for itself (not because a provider was refused), in a
    /// cycle each of its new plugins; then any.
    private static func decisions(for refused: [(plugin: LoadedPlugin, error: PluginLoadError)], newNames: Set<String>,
                                  planned: [LoadedPlugin], published: [LoadedPlugin], replacing: [String: LoadedPlugin],
                                  gone: Set<String>) -> [Decision] {
        let plannedKeys = Set(planned.flatMap(\.metadata.providedStoreKeys))
        for (plugin, error) in refused {
            guard case let .missingRequirement(user, key, _) = error, !plannedKeys.contains(key),
                  let provider = published.first(where: { $0.metadata.providedStoreKeys.contains(key) }) else { continue }
            let name = provider.metadata.name
            if gone.contains(name) {
                let keys = Set(provider.metadata.providedStoreKeys)
                let users = planned.filter { $0.metadata.requiredStoreKeys.contains(where: keys.contains) }.map(\.metadata.name)
                return [.keepServed(provider, .stillRequired(plugin: name, requiredBy: users))]
            }
            let neededBefore = !newNames.contains(plugin.metadata.name)
                || published.contains { $0.metadata.name == plugin.metadata.name && $0.metadata.requiredStoreKeys.contains(key) }
            if let new = replacing[name], neededBefore {
                let reason = "which \(new.metadata.name) \(new.metadata.version) no longer provides"
                return [.keepServed(provider, .missingRequirement(plugin: user, key: key, reason: reason))]
            }
        }
        func isCascade(_ error: PluginLoadError) -> Bool {
            switch error {
            // Its provider is among the plugins planned: refused itself.
            case let .missingRequirement(_, key, _): plannedKeys.contains(key)
            // It waits for a cycle it is not part of.
            case let .requirementCycle(_, chain): chain.first != chain.last
            default: false
            }
        }
        let newlyRefused = refused.filter { newNames.contains($0.plugin.metadata.name) }
        let own = newlyRefused.filter { !isCascade($0.error) }
        // In a cycle, each new plugin of it is an option.
        if case .requirementCycle? = own.first?.error {
            return own.filter { if case .requirementCycle = $0.error { true } else { false } }.map { .refuseNew($0.plugin, $0.error) }
        }
        return (own.first ?? newlyRefused.first).map { [.refuseNew($0.plugin, $0.error)] } ?? []
    }
}
