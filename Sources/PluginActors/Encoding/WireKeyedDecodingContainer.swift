/// A keyed container read from a message: its entries are found by their keys' strings, so entries
/// the reader's type does not know are skipped (a peer that added a field), and a key with no entry
/// is `keyNotFound` (which `decodeIfPresent` and synthesized Optionals turn into nil). The work is
/// the decoder's (``WireDecoder/entry(named:)``), which is not generic.
struct WireKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: WireDecoder

    /// A container of `decoder`'s value, whose framing is checked.
    init(decoder: WireDecoder) throws {
        try decoder.checkEntries()
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        decoder.entryNames().compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        decoder.entry(named: key.stringValue) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try required(key).tag == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, from: required(key), at: codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try WireScalarDecoding.bool(required(key), at: codingPath + [key])
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try WireScalarDecoding.string(required(key), in: decoder.bytes, at: codingPath + [key])
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try WireScalarDecoding.double(required(key), in: decoder.bytes, at: codingPath + [key])
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try WireScalarDecoding.float(required(key), in: decoder.bytes, at: codingPath + [key])
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, forKey: key) }

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
        try decoder.partDecoder(of: decoder.entry(named: key.stringValue) ?? .absent, at: codingPath + [key])
    }

    private func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, forKey key: Key) throws -> Integer {
        try WireScalarDecoding.integer(type, required(key), in: decoder.bytes, at: codingPath + [key])
    }

    /// The value at `key`; `keyNotFound` if there is none.
    private func required(_ key: Key) throws -> WireValue {
        guard let value = decoder.entry(named: key.stringValue) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "no value for the key \"\(key.stringValue)\""))
        }
        return value
    }
}
