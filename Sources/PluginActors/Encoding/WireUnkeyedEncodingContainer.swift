/// An unkeyed container being encoded: its elements, one after another.
struct WireUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: WireEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.node.count }

    mutating func encodeNil() throws {
        _ = nextIndex()
        encoder.node.bytes.appendTag(.null)
    }

    mutating func encode<T: Encodable>(_ value: T) throws { try encodeElement(value) }

    mutating func encode(_ value: Bool) throws { try encodeElement(value) }
    mutating func encode(_ value: String) throws { try encodeElement(value) }
    mutating func encode(_ value: Double) throws { try encodeElement(value) }
    mutating func encode(_ value: Float) throws { try encodeElement(value) }
    mutating func encode(_ value: Int) throws { try encodeElement(value) }
    mutating func encode(_ value: Int8) throws { try encodeElement(value) }
    mutating func encode(_ value: Int16) throws { try encodeElement(value) }
    mutating func encode(_ value: Int32) throws { try encodeElement(value) }
    mutating func encode(_ value: Int64) throws { try encodeElement(value) }
    mutating func encode(_ value: UInt) throws { try encodeElement(value) }
    mutating func encode(_ value: UInt8) throws { try encodeElement(value) }
    mutating func encode(_ value: UInt16) throws { try encodeElement(value) }
    mutating func encode(_ value: UInt32) throws { try encodeElement(value) }
    mutating func encode(_ value: UInt64) throws { try encodeElement(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder.partEncoder(key: WireCodingKey(index: nextIndex())).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.partEncoder(key: WireCodingKey(index: nextIndex())).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.partEncoder(key: WireCodingKey(index: nextIndex()))
    }

    /// Writes `value` as the next element (a scalar through the fast path).
    private mutating func encodeElement<T: Encodable>(_ value: T) throws {
        let index = nextIndex()
        try encoder.encodePart(value, key: WireCodingKey(index: index))
    }

    /// Counts one more element and answers its index.
    private func nextIndex() -> Int {
        defer { encoder.node.count += 1 }
        return encoder.node.count
    }
}
