/// A keyed container being encoded: each entry is the key's string, then the value.
struct WireKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: WireEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws {
        startEntry(key)
        encoder.node.bytes.appendTag(.null)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        startEntry(key)
        try encoder.encodePart(value, key: key)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { writeEntry(key) { $0.appendBool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { writeEntry(key) { $0.appendString(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { writeEntry(key) { $0.appendDouble(value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { writeEntry(key) { $0.appendFloat(value) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { writeEntry(key) { $0.appendInteger(value) } }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        startEntry(key)
        return encoder.partEncoder(key: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        startEntry(key)
        return encoder.partEncoder(key: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        startEntry(WireCodingKey.superKey)
        return encoder.partEncoder(key: WireCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        startEntry(key)
        return encoder.partEncoder(key: key)
    }

    /// Writes `key`, which the entry's value follows.
    private func startEntry(_ key: some CodingKey) {
        encoder.node.bytes.appendKey(key.stringValue)
        encoder.node.count += 1
    }

    /// Writes an entry whose value `writeValue` appends.
    private func writeEntry(_ key: Key, _ writeValue: (inout [UInt8]) -> Void) {
        startEntry(key)
        writeValue(&encoder.node.bytes)
    }
}
