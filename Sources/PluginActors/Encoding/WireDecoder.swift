/// The `Decoder` a value's `init(from:)` is given: one value of a message, read in place (the
/// message is never copied; strings and arrays are made from it as they are asked for).
final class WireDecoder: Decoder {
    /// The whole message.
    let bytes: ArraySlice<UInt8>
    /// The value this decoder reads.
    let value: WireValue
    let codingPath: [any CodingKey]
    /// How many values enclose this one (the message's top is 1), at most ``WireFormat/maximumDepth``.
    let depth: Int
    /// Where this value's keyed containers look for a key first: the start of the entry after the
    /// one found last, so keys asked for in the order they were written are each found at once.
    var nextEntry: Int
    /// The start of the entry found last, looked at second (`decodeIfPresent` asks for one key
    /// two or three times).
    var lastEntry: Int

    /// A decoder of `value`, a part of `bytes` at `codingPath`; throws if it is nested too deep.
    init(bytes: ArraySlice<UInt8>, value: WireValue, codingPath: [any CodingKey], depth: Int) throws {
        guard depth <= WireFormat.maximumDepth else {
            throw WireCorruption("values nested deeper than \(WireFormat.maximumDepth) levels")
                .decodingError(at: codingPath)
        }
        self.bytes = bytes
        self.value = value
        self.codingPath = codingPath
        self.depth = depth
        self.nextEntry = value.payload.lowerBound
        self.lastEntry = value.payload.lowerBound
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try WireKeyedDecodingContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try WireUnkeyedDecodingContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        WireSingleValueDecodingContainer(decoder: self)
    }

    /// `value`, a part of this decoder's value at `path`, decoded as a `T`.
    func decode<T: Decodable>(_ type: T.Type, from value: WireValue, at path: @autoclosure () -> [any CodingKey]) throws -> T {
        try Self.decode(type, from: value, in: bytes, at: path(), depth: depth + 1)
    }

    /// A decoder of `value`, a part of this decoder's value at `path`.
    func partDecoder(of value: WireValue, at path: [any CodingKey]) throws -> WireDecoder {
        try WireDecoder(bytes: bytes, value: value, codingPath: path, depth: depth + 1)
    }

    /// `value` of `bytes`, at `path` and `depth`, decoded as a `T`: by a fast path
    /// (``WireScalarDecoding``) or by `T`'s `init(from:)` with a decoder of its own.
    static func decode<T: Decodable>(
        _ type: T.Type, from value: WireValue, in bytes: ArraySlice<UInt8>,
        at path: @autoclosure () -> [any CodingKey], depth: Int
    ) throws -> T {
        if let scalar = try WireScalarDecoding.decode(type, from: value, in: bytes, at: path()) {
            // Does not fail: the fast path read a value of `T` itself, its metadata identical to `T`'s.
            // A conditional cast all the same: bytes from another process reach this line.
            guard let typed = scalar as? T else {
                throw DecodingError.typeMismatch(T.self, DecodingError.Context(
                    codingPath: path(), debugDescription: "the fast path read a \(Swift.type(of: scalar)), not a \(T.self)"))
            }
            return typed
        }
        return try T(from: WireDecoder(bytes: bytes, value: value, codingPath: path(), depth: depth))
    }

    /// The error for this value where a container of `shape` was expected.
    func mismatch(expected shape: String) -> DecodingError {
        let context = DecodingError.Context(
            codingPath: codingPath, debugDescription: "expected \(shape), found \(value.tag.described)")
        return value.tag == .null ? .valueNotFound(Any.self, context) : .typeMismatch(Any.self, context)
    }
}
