/// A keyed container read from a message: its entries are found by their keys' strings, so entries
/// the reader's type does not know are skipped (a peer that added a field), and a key with no entry
/// is `keyNotFound` (which `decodeIfPresent` and synthesized Optionals turn into nil).
struct WireKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: WireDecoder

    /// Checks the container's framing: every entry's key and value lie within it, so the lookups
    /// below cannot meet a broken entry (a value's own content is checked when it is decoded).
    init(decoder: WireDecoder) throws {
        guard decoder.value.tag == .keyed else { throw decoder.mismatch(expected: "a keyed container") }
        var reader = WireReader(decoder.bytes, in: decoder.value.payload)
        while !reader.isAtEnd {
            do {
                _ = try reader.key()
                _ = try reader.value()
            } catch {
                throw error.decodingError(at: decoder.codingPath)
            }
        }
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var keys: [Key] = []
        _ = firstEntry(from: entries.lowerBound, to: entries.upperBound) { keyRange in
            if let name = String(validating: decoder.bytes[keyRange], as: UTF8.self), let key = Key(stringValue: name) {
                keys.append(key)
            }
            return false
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        entry(key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try required(key).tag == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, from: required(key), at: codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeValue(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeValue(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeValue(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeValue(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeValue(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeValue(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeValue(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeValue(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeValue(type, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.partDecoder(of: required(key), at: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.partDecoder(of: required(key), at: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(named: WireCodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(named: key)
    }

    /// A decoder of the value at `key`, or of nil if there is none (as JSONDecoder's).
    private func superDecoder(named key: some CodingKey) throws -> any Decoder {
        try decoder.partDecoder(of: entry(named: key.stringValue) ?? .absent, at: codingPath + [key])
    }

    /// The generic `decode`, under a name the overloads above cannot resolve to themselves.
    private func decodeValue<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decode(type, forKey: key)
    }

    /// The value at `key`; `keyNotFound` if there is none.
    private func required(_ key: Key) throws -> WireValue {
        guard let value = entry(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "no value for the key \"\(key.stringValue)\""))
        }
        return value
    }

    /// The value of the first entry keyed `key`, looking from the hint on, then from the start.
    private func entry(_ key: Key) -> WireValue? {
        entry(named: key.stringValue)
    }

    private func entry(named name: String) -> WireValue? {
        let utf8 = name.utf8
        let byteCount = utf8.count
        let bytes = decoder.bytes
        func isKey(_ keyRange: Range<Int>) -> Bool {
            keyRange.count == byteCount && bytes[keyRange].elementsEqual(utf8)
        }
        let hint = decoder.entryHint
        guard let found = firstEntry(from: hint, to: entries.upperBound, where: isKey)
            ?? firstEntry(from: entries.lowerBound, to: hint, where: isKey)
        else { return nil }
        decoder.entryHint = found.start
        return found.value
    }

    /// The range of the container's entries in the message.
    private var entries: Range<Int> { decoder.value.payload }

    /// The first entry that starts in `start..<stop` and whose key's range satisfies `isKey`: where
    /// it starts and its value. The framing was checked when the container was made.
    private func firstEntry(
        from start: Int, to stop: Int, where isKey: (Range<Int>) -> Bool
    ) -> (start: Int, value: WireValue)? {
        var reader = WireReader(decoder.bytes, in: start..<entries.upperBound)
        while reader.position < stop {
            let entryStart = reader.position
            guard let keyRange = try? reader.key(), let value = try? reader.value() else { return nil }
            if isKey(keyRange) { return (entryStart, value) }
        }
        return nil
    }
}
