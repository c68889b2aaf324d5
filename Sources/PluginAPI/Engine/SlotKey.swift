/// A store key with its hash, computed once. Growing a table of slots, and freezing it, then never
/// reads a key's characters again: with many slots they lie far apart in memory, and reading them
/// for every rehash made registration slower per slot the more slots there were.
struct SlotKey: Hashable {
    let key: String
    /// ``StoreKeyHash`` of `key`, the same hash a get computes.
    let hash: Int

    init(_ key: String) {
        self.key = key
        hash = StoreKeyHash.of(key)
    }

    static func == (lhs: SlotKey, rhs: SlotKey) -> Bool {
        lhs.hash == rhs.hash && lhs.key == rhs.key
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
