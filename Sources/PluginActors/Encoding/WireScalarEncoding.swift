/// The encoder's fast paths: the standard library's scalar types, `String`, arrays of them and
/// `[UInt8]` are written straight into the message, without an encoder, a container or a node of
/// their own (most arguments and results are made of these).
enum WireScalarEncoding {
    /// Appends `value` to `bytes` and answers true if it is of a type with a fast path; answers false,
    /// appending nothing, if not.
    static func encode<T: Encodable>(_ value: T, into bytes: inout [UInt8]) -> Bool {
        if let scalar = encodeScalar(value, into: &bytes) { return scalar }
        return encodeArray(value, into: &bytes)
    }

    /// True if `value` is a scalar or a String and was appended, nil if it is not one.
    private static func encodeScalar<T: Encodable>(_ value: T, into bytes: inout [UInt8]) -> Bool? {
        // Each test is a comparison of type metadata; the cast after it cannot fail.
        if T.self == String.self, let value = value as? String { bytes.appendString(value) }
        else if T.self == Int.self, let value = value as? Int { bytes.appendInteger(value) }
        else if T.self == Bool.self, let value = value as? Bool { bytes.appendBool(value) }
        else if T.self == Double.self, let value = value as? Double { bytes.appendDouble(value) }
        else if T.self == Float.self, let value = value as? Float { bytes.appendFloat(value) }
        else if T.self == UInt8.self, let value = value as? UInt8 { bytes.appendInteger(value) }
        else if T.self == Int64.self, let value = value as? Int64 { bytes.appendInteger(value) }
        else if T.self == UInt64.self, let value = value as? UInt64 { bytes.appendInteger(value) }
        else if T.self == Int32.self, let value = value as? Int32 { bytes.appendInteger(value) }
        else if T.self == UInt32.self, let value = value as? UInt32 { bytes.appendInteger(value) }
        else if T.self == UInt.self, let value = value as? UInt { bytes.appendInteger(value) }
        else if T.self == Int16.self, let value = value as? Int16 { bytes.appendInteger(value) }
        else if T.self == UInt16.self, let value = value as? UInt16 { bytes.appendInteger(value) }
        else if T.self == Int8.self, let value = value as? Int8 { bytes.appendInteger(value) }
        else { return nil }
        return true
    }

    /// Appends `value` if it is `[UInt8]` (as `.bytes`) or an array of `String`, `Int`, `Double` or
    /// `Bool` (as an unkeyed container, as the general path would write it).
    private static func encodeArray<T: Encodable>(_ value: T, into bytes: inout [UInt8]) -> Bool {
        if T.self == [UInt8].self, let value = value as? [UInt8] {
            bytes.appendTag(.bytes)
            bytes.appendVarint(value.count)
            bytes.append(contentsOf: value)
        } else if T.self == [String].self, let value = value as? [String] {
            appendArray(value, into: &bytes) { $0.appendString($1) }
        } else if T.self == [Int].self, let value = value as? [Int] {
            appendArray(value, into: &bytes) { $0.appendInteger($1) }
        } else if T.self == [Double].self, let value = value as? [Double] {
            appendArray(value, into: &bytes) { $0.appendDouble($1) }
        } else if T.self == [Bool].self, let value = value as? [Bool] {
            appendArray(value, into: &bytes) { $0.appendBool($1) }
        } else {
            return false
        }
        return true
    }

    /// Appends `elements` as an unkeyed container, each written by `appendElement`.
    private static func appendArray<Element>(
        _ elements: [Element], into bytes: inout [UInt8], _ appendElement: (inout [UInt8], Element) -> Void
    ) {
        bytes.appendContainer(.unkeyed) { content in
            content.appendVarint(elements.count)
            for element in elements {
                appendElement(&content, element)
            }
        }
    }
}
