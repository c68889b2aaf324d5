/// The coding keys the format makes itself: an unkeyed container's index in a coding path, and
/// `super` for `superEncoder()` and `superDecoder()`.
struct WireCodingKey: CodingKey {
    /// The key `superEncoder()` and `superDecoder()` use, as JSONEncoder's does.
    static let superKey = WireCodingKey(stringValue: "super")

    private let name: String?
    let intValue: Int?

    init(stringValue: String) {
        name = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        name = nil
        self.intValue = intValue
    }

    /// The key of the element at `index` of an unkeyed container.
    init(index: Int) {
        self.init(intValue: index)
    }

    var stringValue: String { name ?? "Index \(intValue ?? 0)" }
}
