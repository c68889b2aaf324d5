import PluginAPI

/// Changes of one reload that go into the host together, all or nothing, in one swap: those linked by
/// their keys. A new version or new plugin goes with the changes whose keys (new or old) it requires,
/// with a change whose old version gives up a key it takes over, and with the changes of the plugins
/// that require its old version (directly, or through plugins that are registered again with it).
/// So a new provider goes in the same step as the new version of a plugin that now requires it.
struct ReloadStep {
    /// In the order of the result's registration: providers first.
    let changes: [ReloadTarget.Change]

    /// True if the step replaces a served plugin (else it only adds new ones).
    var upgrades: Bool { changes.contains { $0.old != nil } }

    /// `changes` in steps, in the order of their first plugin in `order` (the result's registration
    /// order); `published`: the plugins served, in publication order.
    static func steps(of changes: [ReloadTarget.Change], published: [LoadedPlugin], order: [LoadedPlugin]) -> [ReloadStep] {
        let position = Dictionary(order.enumerated().map { ($1.metadata.name, $0) }) { first, _ in first }
        var root = Array(changes.indices)
        func find(_ index: Int) -> Int {
            var index = index
            while root[index] != index { index = root[index] }
            return index
        }
        func link(_ one: Int, _ other: Int?) {
            guard let other else { return }
            root[find(one)] = find(other)
        }
        var newProvider: [String: Int] = [:], oldProvider: [String: Int] = [:]
        var changeNamed: [String: Int] = [:]
        for (index, change) in changes.enumerated() {
            changeNamed[change.new.metadata.name] = index
            change.new.metadata.providedStoreKeys.forEach { newProvider[$0] = index }
            change.old?.metadata.providedStoreKeys.forEach { oldProvider[$0] = index }
        }
        for (index, change) in changes.enumerated() {
            for key in change.new.metadata.requiredStoreKeys {
                link(index, newProvider[key])
                link(index, oldProvider[key])
            }
            for key in change.new.metadata.providedStoreKeys { link(index, oldProvider[key]) }
            if let old = change.old {
                for dependent in dependents(of: [old], among: published) { link(index, changeNamed[dependent.metadata.name]) }
            }
        }
        var groups: [Int: [ReloadTarget.Change]] = [:]
        for (index, change) in changes.enumerated() { groups[find(index), default: []].append(change) }
        func rank(_ change: ReloadTarget.Change) -> Int { position[change.new.metadata.name] ?? .max }
        return groups.values
            .map { ReloadStep(changes: inOrder($0, position: position)) }
            .sorted { ($0.changes.first.map(rank) ?? .max) < ($1.changes.first.map(rank) ?? .max) }
    }

    /// `changes` by their plugin's position in `position` (the result's registration order), those
    /// without one last, in their order.
    static func inOrder(_ changes: [ReloadTarget.Change], position: [String: Int]) -> [ReloadTarget.Change] {
        changes.enumerated().sorted { one, other in
            let first = position[one.element.new.metadata.name] ?? .max, second = position[other.element.new.metadata.name] ?? .max
            return first != second ? first < second : one.offset < other.offset
        }.map(\.element)
    }

    /// The plugins of `published` (in its order, providers first), other than `plugins`, that require
    /// a key of `plugins`, or of another plugin in the result.
    static func dependents(of plugins: [LoadedPlugin], among published: [LoadedPlugin]) -> [LoadedPlugin] {
        var keys = Set(plugins.flatMap(\.metadata.providedStoreKeys))
        let names = Set(plugins.map(\.metadata.name))
        var result: [LoadedPlugin] = []
        for other in published where !names.contains(other.metadata.name)
            && other.metadata.requiredStoreKeys.contains(where: keys.contains) {
            result.append(other)
            keys.formUnion(other.metadata.providedStoreKeys)
        }
        return result
    }
}
