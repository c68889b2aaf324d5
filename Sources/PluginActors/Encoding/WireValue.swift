/// One value's place in a message: its tag and the range of its payload (what follows the tag and,
/// for strings, bytes and containers, the length). ``WireReader/value()`` made it, so the payload lies
/// within the message and within the container around it.
struct WireValue {
    /// What kind of value it is.
    let tag: WireTag
    /// Where its payload lies in the message, in the message's indices.
    let payload: Range<Int>

    /// A `nil` that is not on the wire, for a `superDecoder` whose key is missing.
    static let absent = WireValue(tag: .null, payload: 0..<0)
}
