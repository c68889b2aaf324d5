/// A module added a declared key with another type than declared.
struct WrongSlotType: Error, CustomStringConvertible {
    let key: String
    let reason: String

    var description: String { "key '\(key)': \(reason)" }
}
