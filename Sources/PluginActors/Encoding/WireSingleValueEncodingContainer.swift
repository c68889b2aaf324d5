/// The container of a value that is one value: written into its node's bytes as it is, no tag or
/// length of its own (an Optional, a RawRepresentable enum, a wrapper).
struct WireSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: WireEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws {
        try checkEmpty(for: Bool?.none as Any)
        encoder.node.become(.single, at: codingPath)
        encoder.node.bytes.appendTag(.null)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try checkEmpty(for: value)
        if WireScalarEncoding.encode(value, into: &encoder.node.bytes) {
            encoder.node.become(.single, at: codingPath)
            return
        }
        // Any other value encodes itself into this node, as whatever container it asks for.
        try value.encode(to: encoder.reentered(for: value))
    }

    mutating func encode(_ value: Bool) throws { try encodeValue(value) }
    mutating func encode(_ value: String) throws { try encodeValue(value) }
    mutating func encode(_ value: Double) throws { try encodeValue(value) }
    mutating func encode(_ value: Float) throws { try encodeValue(value) }
    mutating func encode(_ value: Int) throws { try encodeValue(value) }
    mutating func encode(_ value: Int8) throws { try encodeValue(value) }
    mutating func encode(_ value: Int16) throws { try encodeValue(value) }
    mutating func encode(_ value: Int32) throws { try encodeValue(value) }
    mutating func encode(_ value: Int64) throws { try encodeValue(value) }
    mutating func encode(_ value: UInt) throws { try encodeValue(value) }
    mutating func encode(_ value: UInt8) throws { try encodeValue(value) }
    mutating func encode(_ value: UInt16) throws { try encodeValue(value) }
    mutating func encode(_ value: UInt32) throws { try encodeValue(value) }
    mutating func encode(_ value: UInt64) throws { try encodeValue(value) }

    /// The generic `encode`, under a name the overloads above cannot resolve to themselves.
    private mutating func encodeValue<T: Encodable>(_ value: T) throws {
        try encode(value)
    }

    /// Throws unless the node is still empty: a single-value container holds one value.
    private func checkEmpty(for value: Any) throws {
        guard encoder.node.shape == .none else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "a second value encoded where one value was already"))
        }
    }
}
