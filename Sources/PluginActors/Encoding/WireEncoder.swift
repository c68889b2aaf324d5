/// The `Encoder` a value's `encode(to:)` is given: it writes into one node of the tree
/// (``WireNode``). Three words, so an `any Encoder` of it needs no allocation.
struct WireEncoder: Encoder {
    /// The node the value is written into.
    let node: WireNode
    let codingPath: [any CodingKey]
    /// How many values enclose this one (the message's top is 1); past ``WireFormat/maximumDepth``
    /// a value is refused, as the decoder would refuse it.
    let depth: Int

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.become(.keyed, at: codingPath)
        return KeyedEncodingContainer(WireKeyedEncodingContainer(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.become(.unkeyed, at: codingPath)
        return WireUnkeyedEncodingContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        WireSingleValueEncodingContainer(encoder: self)
    }

    /// Writes `value` as a part of this container, keyed `key` (a fast path's value into this node's
    /// bytes, any other into a node of its own).
    func encodePart<T: Encodable>(_ value: T, key: @autoclosure () -> any CodingKey) throws {
        if WireScalarEncoding.encode(value, into: &node.bytes) { return }
        let part = partEncoder(key: key())
        try part.checkDepth(of: value)
        try value.encode(to: part)
    }

    /// An encoder for a new part of this container, keyed `key`, in a node of its own; one nested
    /// too deep records the failure in its node.
    func partEncoder(key: any CodingKey) -> WireEncoder {
        let part = WireEncoder(node: node.addPart(), codingPath: codingPath + [key], depth: depth + 1)
        if let tooDeep = part.depthFailure(of: "a nested container") { part.node.fail(tooDeep) }
        return part
    }

    /// An encoder that encodes `value` again into this node, one level deeper (a single-value
    /// container's value that is not a fast path's).
    func reentered<T: Encodable>(for value: T) throws -> WireEncoder {
        let deeper = WireEncoder(node: node, codingPath: codingPath, depth: depth + 1)
        try deeper.checkDepth(of: value)
        return deeper
    }

    /// Throws if this encoder is nested deeper than the format allows.
    private func checkDepth<T>(of value: T) throws {
        if let tooDeep = depthFailure(of: value) { throw tooDeep }
    }

    private func depthFailure(of value: Any) -> EncodingError? {
        guard depth > WireFormat.maximumDepth else { return nil }
        return .invalidValue(value, EncodingError.Context(
            codingPath: codingPath,
            debugDescription: "values nested deeper than \(WireFormat.maximumDepth) levels"))
    }
}
