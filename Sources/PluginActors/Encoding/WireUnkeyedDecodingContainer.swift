/// An unkeyed container read from a message: its elements in order. A `.bytes` value (a `[UInt8]`)
/// reads as one too, each byte an integer element.
struct WireUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: WireDecoder
    let count: Int?
    private(set) var currentIndex = 0
    /// Where the next element starts.
    private var position: Int
    /// Whether the elements are the raw bytes of a `.bytes` value.
    private let elementsAreBytes: Bool

    /// Checks the container's framing: the count, and that exactly that many elements fill it.
    init(decoder: WireDecoder) throws {
        self.decoder = decoder
        let payload = decoder.value.payload
        switch decoder.value.tag {
        case .bytes:
            count = payload.count
            position = payload.lowerBound
            elementsAreBytes = true
        case .unkeyed:
            var reader = WireReader(decoder.bytes, in: payload)
            do throws(WireCorruption) {
                let count = try reader.count(eachAtLeast: 1)
                self.count = count
                position = reader.position
                for _ in 0..<count { _ = try reader.value() }
                guard reader.isAtEnd else { throw WireCorruption("\(reader.remaining) bytes after the last element") }
            } catch {
                throw error.decodingError(at: decoder.codingPath)
            }
            elementsAreBytes = false
        default:
            throw decoder.mismatch(expected: "an unkeyed container")
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    mutating func decodeNil() throws -> Bool {
        let (value, next) = try peek(Never?.self)
        guard value.tag == .null else { return false }
        advance(to: next)
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, next) = try peek(type)
        let decoded = try decoder.decode(type, from: value, at: codingPath + [WireCodingKey(index: currentIndex)])
        advance(to: next)
        return decoded
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeElement(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeElement(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeElement(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeElement(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeElement(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeElement(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeElement(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeElement(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeElement(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeElement(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeElement(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeElement(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeElement(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeElement(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try partDecoder(for: KeyedDecodingContainer<NestedKey>.self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try partDecoder(for: (any UnkeyedDecodingContainer).self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try partDecoder(for: (any Decoder).self)
    }

    /// The generic `decode`, under a name the overloads above cannot resolve to themselves.
    private mutating func decodeElement<T: Decodable>(_ type: T.Type) throws -> T {
        try decode(type)
    }

    /// A decoder of the next element, moving past it.
    private mutating func partDecoder<T>(for type: T.Type) throws -> WireDecoder {
        let (value, next) = try peek(type)
        let part = try decoder.partDecoder(of: value, at: codingPath + [WireCodingKey(index: currentIndex)])
        advance(to: next)
        return part
    }

    /// The next element and where the one after it starts; `valueNotFound` at the end.
    private func peek<T>(_ type: T.Type) throws -> (WireValue, next: Int) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [WireCodingKey(index: currentIndex)],
                debugDescription: "the unkeyed container has no more elements"))
        }
        if elementsAreBytes {
            return (WireValue(tag: .byteElement, payload: position..<(position + 1)), position + 1)
        }
        var reader = WireReader(decoder.bytes, in: position..<decoder.value.payload.upperBound)
        do {
            let value = try reader.value()
            return (value, reader.position)
        } catch {
            throw error.decodingError(at: codingPath)
        }
    }

    private mutating func advance(to next: Int) {
        position = next
        currentIndex += 1
    }
}
