/// The decoder's fast paths, the mirror of ``WireScalarEncoding``: the standard library's scalar
/// types, `String`, arrays of them and `[UInt8]` read straight from the message, without a decoder
/// or a container. Every value read is checked against the type asked for: a wrong kind of value is
/// `typeMismatch`, an integer that does not fit is `dataCorrupted`, never a trap.
enum WireScalarDecoding {
    /// `value` as a `T`, if `T` has a fast path; nil if it has none (or, for arrays, if the value is
    /// not what the fast path reads, so the general path says what is wrong).
    static func decode<T>(
        _ type: T.Type, from value: WireValue, in bytes: ArraySlice<UInt8>,
        at path: @autoclosure () -> [any CodingKey]
    ) throws -> T? {
        // Each test is a comparison of type metadata; the cast after it cannot fail.
        if T.self == String.self { return try string(value, in: bytes, at: path()) as? T }
        if T.self == Int.self { return try integer(Int.self, value, in: bytes, at: path()) as? T }
        if T.self == Bool.self { return try bool(value, at: path()) as? T }
        if T.self == Double.self { return try double(value, in: bytes, at: path()) as? T }
        if T.self == Float.self { return try float(value, in: bytes, at: path()) as? T }
        if let integer = try otherInteger(type, value, in: bytes, at: path()) { return integer }
        return try array(type, value, in: bytes, at: path())
    }

    /// `value` as an integer type other than `Int`, if `T` is one.
    private static func otherInteger<T>(
        _ type: T.Type, _ value: WireValue, in bytes: ArraySlice<UInt8>, at path: @autoclosure () -> [any CodingKey]
    ) throws -> T? {
        if T.self == UInt8.self { return try integer(UInt8.self, value, in: bytes, at: path()) as? T }
        if T.self == Int64.self { return try integer(Int64.self, value, in: bytes, at: path()) as? T }
        if T.self == UInt64.self { return try integer(UInt64.self, value, in: bytes, at: path()) as? T }
        if T.self == Int32.self { return try integer(Int32.self, value, in: bytes, at: path()) as? T }
        if T.self == UInt32.self { return try integer(UInt32.self, value, in: bytes, at: path()) as? T }
        if T.self == UInt.self { return try integer(UInt.self, value, in: bytes, at: path()) as? T }
        if T.self == Int16.self { return try integer(Int16.self, value, in: bytes, at: path()) as? T }
        if T.self == UInt16.self { return try integer(UInt16.self, value, in: bytes, at: path()) as? T }
        if T.self == Int8.self { return try integer(Int8.self, value, in: bytes, at: path()) as? T }
        return nil
    }

    /// `value` as an array with a fast path, if `T` is one and `value` is what its path reads.
    private static func array<T>(
        _ type: T.Type, _ value: WireValue, in bytes: ArraySlice<UInt8>, at path: @autoclosure () -> [any CodingKey]
    ) throws -> T? {
        if T.self == [UInt8].self, value.tag == .bytes { return Array(bytes[value.payload]) as? T }
        guard value.tag == .unkeyed else { return nil }
        if T.self == [String].self {
            return try elements(of: value, in: bytes, at: path()) { try string($0, in: bytes, at: $1()) } as? T
        }
        if T.self == [Int].self {
            return try elements(of: value, in: bytes, at: path()) { try integer(Int.self, $0, in: bytes, at: $1()) } as? T
        }
        if T.self == [Double].self {
            return try elements(of: value, in: bytes, at: path()) { try double($0, in: bytes, at: $1()) } as? T
        }
        if T.self == [Bool].self {
            return try elements(of: value, in: bytes, at: path()) { try bool($0, at: $1()) } as? T
        }
        return nil
    }

    /// The elements of the unkeyed container `value`, each read by `decodeElement`.
    private static func elements<Element>(
        of value: WireValue, in bytes: ArraySlice<UInt8>, at path: @autoclosure () -> [any CodingKey],
        _ decodeElement: (WireValue, () -> [any CodingKey]) throws -> Element
    ) throws -> [Element] {
        var reader = WireReader(bytes, in: value.payload)
        let count: Int
        do { count = try reader.count(eachAtLeast: 1) } catch { throw error.decodingError(at: path()) }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        // An element's path is built only if it fails.
        try withoutActuallyEscaping(path) { path in
            for index in 0..<count {
                let element: WireValue
                do throws(WireCorruption) { element = try reader.value() } catch { throw error.decodingError(at: path()) }
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
        guard let string = String(validating: bytes[value.payload], as: UTF8.self) else {
            throw WireCorruption("a String that is not valid UTF-8").decodingError(at: path())
        }
        return string
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
        var reader = WireReader(bytes, in: value.payload)
        let magnitude: UInt64
        switch value.tag {
        case .positive, .negative:
            guard let read = try? reader.varint() else {
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
