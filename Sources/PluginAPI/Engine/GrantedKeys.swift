/// The keys a resolver lent to one plugin may read: those its plugin declared it requires and those it
/// provides. Every get through that resolver is checked against them (PH-0031).
///
/// A plain get hashes its key once for the check and the slot lookup together; the check finds that
/// hash among the granted keys' (kept with them, sorted: no key's characters are hashed again), then
/// compares the characters of the one that has it. Immutable after `init`.
final class GrantedKeys: Sendable {
    /// The plugin the resolver is lent to, named in a refusal.
    let plugin: String
    /// Sorted by hash.
    private let keys: [SlotKey]

    init(plugin: String, keys: some Sequence<String>) {
        self.plugin = plugin
        // Each key's characters hashed once, by StoreKeyHash: the set of SlotKeys hashes that hash.
        self.keys = Set(keys.lazy.map(SlotKey.init)).sorted { $0.hash < $1.hash }
    }

    /// Whether `key`, whose ``StoreKeyHash`` is `hash`, may be read.
    @inline(__always)
    func allows(_ key: String, hash: Int) -> Bool {
        // The first granted key whose hash is not below `hash`, then each with that hash.
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle].hash < hash { low = middle + 1 } else { high = middle }
        }
        while low < keys.count, keys[low].hash == hash {
            if keys[low].key == key { return true }
            low += 1
        }
        return false
    }

    /// Whether `key` may be read.
    func allows(_ key: String) -> Bool {
        allows(key, hash: StoreKeyHash.of(key))
    }
}
