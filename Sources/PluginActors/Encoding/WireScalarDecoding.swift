/// The decoder's fast paths, the mirror of ``WireScalarEncoding``: the standard library's scalar
/// types, `String`, arrays of them and `[UInt8]` read straight from the message, without a decoder
/// or a container. Every value read is checked against the type asked for: a wrong kind of value is
/// `typeMismatch`, an integer that does not fit is `dataCorrupted`, never a trap.
enum WireScalarDecoding {
    /// `value` as a value of `type`, if `type` has a fast path; nil if it has none (or, for arrays,
    /// if the value is not what the fast path reads, so the general path says what is wrong). The
    /// result is `Any`, not generic: an `Optional<T>` of a generic `T` costs a metadata lookup.
    static func decode(
        _ type: Any.Type, from value: WireValue, in bytes: ArraySlice<UInt8>,
        at path: @autoclosure () -> [any CodingKey]
    ) throws -> Any? {
        guard let fast = WireFastType(type) else { return nil }
        switch fast {
        case .string: return try string(value, in: bytes, at: path())
        case .bool: return try bool(value, at: path())
        case .double: return try double(value, in: bytes, at: path())
        case .float: return try float(value, in: bytes, at: path())
        case .int: return try integer(Int.self, value, in: bytes, at: path())
        case .int8: return try integer(Int8.self, value, in: bytes, at: path())
        case .int16: return try integer(Int16.self, value, in: bytes, at: path())
        case .int32: return try integer(Int32.self, value, in: bytes, at: path())
        case .int64: return try integer(Int64.self, value, in: bytes, at: path())
        case .uint: return try integer(UInt.self, value, in: bytes, at: path())
        case .uint8: return try integer(UInt8.self, value, in: bytes, at: path())
        case .uint16: return try integer(UInt16.self, value, in: bytes, at: path())
        case .uint32: return try integer(UInt32.self, value, in: bytes, at: path())
        case .uint64: return try integer(UInt64.self, value, in: bytes, at: path())
        case .bytes, .strings, .ints, .doubles, .bools: return try array(fast, value, in: bytes, at: path())
        }
    }

    /// `value` as the array type `fast`, if `value` is what its fast path reads; nil if not (the
    /// general path then reads it, or says what is wrong).
    private static func array(
        _ fast: WireFastType, _ value: WireValue, in bytes: ArraySlice<UInt8>, at path: @autoclosure () -> [any CodingKey]
    ) throws -> Any? {
        if fast == .bytes { return value.tag == .bytes ? Array(bytes[value.payload]) : nil }
        guard value.tag == .unkeyed else { return nil }
        switch fast {
        case .strings: return try elements(of: value, eachAtLeast: 2, in: bytes, at: path()) { try string($0, in: bytes, at: $1()) }
        case .ints: return try elements(of: value, eachAtLeast: 2, in: bytes, at: path()) { try integer(Int.self, $0, in: bytes, at: $1()) }
        case .doubles: return try elements(of: value, eachAtLeast: 9, in: bytes, at: path()) { try double($0, in: bytes, at: $1()) }
        case .bools: return try elements(of: value, eachAtLeast: 1, in: bytes, at: path()) { try bool($0, at: $1()) }
        default: return nil
        }
    }

    /// The elements of the unkeyed container `value`, each read by `decodeElement` from at least
    /// `minimumSize` bytes when it is valid (a tag and a length or a varint take two; a nil, which
    /// is not, one): the array reserved holds no more elements than the bytes can, so it is at most
    /// 8 bytes for each byte of the message (a String's 16 for two).
    private static func elements<Element>(
        of value: WireValue, eachAtLeast minimumSize: Int, in bytes: ArraySlice<UInt8>,
        at path: @autoclosure () -> [any CodingKey],
        _ decodeElement: (WireValue, () -> [any CodingKey]) throws -> Element
    ) throws -> [Element] {
        var reader = WireReader(in: value.payload)
        let count: Int
        do { count = try reader.count(of: bytes, eachAtLeast: 1) } catch { throw error.decodingError(at: path()) }
        var elements: [Element] = []
        elements.reserveCapacity(min(count, reader.remaining / minimumSize))
        // An element's path is built only if it fails.
        try withoutActuallyEscaping(path) { path in
            for index in 0..<count {
                let element: WireValue
                do throws(WireCorruption) { element = try reader.value(of: bytes) } catch { throw error.decodingError(at: path()) }
                elements.append(try decodeElement(element) { path() + [WireCodingKey(index: index)] })
            }
        }
        guard reader.isAtEnd else {
            throw WireCorruption("\(reader.remaining) bytes after the last element").decodingError(at: path())
        }
        return elements
    }

    /// `value` as a String: its UTF-8 must be valid.
    static func string(_ value: WireValue, in bytes: ArraySlice<UInt8>, at path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard value.tag == .string else { throw mismatch(String.self, value, at: path()) }
        guard let string = validString(bytes[value.payload]) else {
            throw WireCorruption("a String that is not valid UTF-8").decodingError(at: path())
        }
        return string
    }

    /// `utf8` as a String, if it is valid UTF-8. (`UTF8Span` validates without the generic
    /// metadata `String(validating:as:)` looks up on every call.)
    static func validString(_ utf8: ArraySlice<UInt8>) -> String? {
        let span = utf8.span
        guard let valid = try? UTF8Span(validating: span) else { return nil }
        return String(copying: valid)
    }

    /// `value` as a Bool.
    static func bool(_ value: WireValue, at path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        switch value.tag {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self, value, at: path())
        }
    }

    /// `value` as an integer of type `Integer`, which it must fit.
    static func integer<Integer: FixedWidthInteger>(
        _ type: Integer.Type, _ value: WireValue, in bytes: ArraySlice<UInt8>, at path: @autoclosure () -> [any CodingKey]
    ) throws -> Integer {
        var reader = WireReader(in: value.payload)
        let magnitude: UInt64
        switch value.tag {
        case .positive, .negative:
            guard let read = try? reader.varint(of: bytes) else {
                throw WireCorruption("an integer cut short").decodingError(at: path())
            }
            magnitude = read
        case .byteElement:
            magnitude = UInt64(bytes[value.payload.lowerBound])
        default:
            throw mismatch(Integer.self, value, at: path())
        }
        if value.tag == .negative {
            // The value is -1 - magnitude; as an Int64 it exists when magnitude <= Int64.max.
            if magnitude <= UInt64(Int64.max), let fitting = Integer(exactly: -1 - Int64(magnitude)) { return fitting }
            throw WireCorruption("-\(magnitude) - 1 does not fit in \(Integer.self)").decodingError(at: path())
        }
        guard let fitting = Integer(exactly: magnitude) else {
            throw WireCorruption("\(magnitude) does not fit in \(Integer.self)").decodingError(at: path())
        }
        return fitting
    }

    /// `value` as a Double, from a Double or a Float (widened exactly).
    static func double(_ value: WireValue, in bytes: ArraySlice<UInt8>, at path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value.tag {
        case .float64: return Double(bitPattern: littleEndian(bytes[value.payload]))
        case .float32: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: littleEndian(bytes[value.payload]))))
        default: throw mismatch(Double.self, value, at: path())
        }
    }

    /// `value` as a Float, from a Float or a Double within Float's range (rounded, as JSONDecoder does).
    static func float(_ value: WireValue, in bytes: ArraySlice<UInt8>, at path: @autoclosure () -> [any CodingKey]) throws -> Float {
        switch value.tag {
        case .float32:
            return Float(bitPattern: UInt32(truncatingIfNeeded: littleEndian(bytes[value.payload])))
        case .float64:
            let double = Double(bitPattern: littleEndian(bytes[value.payload]))
            guard !double.isFinite || abs(double) <= Double(Float.greatestFiniteMagnitude) else {
                throw WireCorruption("\(double) does not fit in Float").decodingError(at: path())
            }
            return Float(double)
        default:
            throw mismatch(Float.self, value, at: path())
        }
    }

    /// The error for `value` where a `T` was expected: `valueNotFound` for nil, `typeMismatch` else.
    static func mismatch<T>(_ type: T.Type, _ value: WireValue, at path: [any CodingKey]) -> DecodingError {
        let context = DecodingError.Context(
            codingPath: path, debugDescription: "expected \(T.self), found \(value.tag.described)")
        return value.tag == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    /// The bytes as an integer, the first the lowest.
    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var result: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            result |= UInt64(byte) << (8 * UInt64(index))
        }
        return result
    }
}
