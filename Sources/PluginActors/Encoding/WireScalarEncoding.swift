/// The encoder's fast paths: the standard library's scalar types, `String`, arrays of them and
/// `[UInt8]` are written straight into the message, without an encoder, a container or a node of
/// their own (most arguments and results are made of these).
enum WireScalarEncoding {
    /// Appends `value` to `bytes` and answers true if it is of a type with a fast path; answers false,
    /// appending nothing, if not.
    static func encode<T: Encodable>(_ value: T, into bytes: inout [UInt8]) -> Bool {
        guard let fast = WireFastType(T.self) else { return false }
        // The casts cannot fail: `fast` is `T`'s own.
        switch fast {
        case .string: (value as? String).map { bytes.appendString($0) }
        case .bool: (value as? Bool).map { bytes.appendBool($0) }
        case .double: (value as? Double).map { bytes.appendDouble($0) }
        case .float: (value as? Float).map { bytes.appendFloat($0) }
        case .int: (value as? Int).map { bytes.appendInteger($0) }
        case .int8: (value as? Int8).map { bytes.appendInteger($0) }
        case .int16: (value as? Int16).map { bytes.appendInteger($0) }
        case .int32: (value as? Int32).map { bytes.appendInteger($0) }
        case .int64: (value as? Int64).map { bytes.appendInteger($0) }
        case .uint: (value as? UInt).map { bytes.appendInteger($0) }
        case .uint8: (value as? UInt8).map { bytes.appendInteger($0) }
        case .uint16: (value as? UInt16).map { bytes.appendInteger($0) }
        case .uint32: (value as? UInt32).map { bytes.appendInteger($0) }
        case .uint64: (value as? UInt64).map { bytes.appendInteger($0) }
        case .bytes: (value as? [UInt8]).map { appendBytes($0, into: &bytes) }
        case .strings: (value as? [String]).map { appendArray($0, into: &bytes) { $0.appendString($1) } }
        case .ints: (value as? [Int]).map { appendArray($0, into: &bytes) { $0.appendInteger($1) } }
        case .doubles: (value as? [Double]).map { appendArray($0, into: &bytes) { $0.appendDouble($1) } }
        case .bools: (value as? [Bool]).map { appendArray($0, into: &bytes) { $0.appendBool($1) } }
        }
        return true
    }

    /// Appends `value` as `.bytes`: its count, then the bytes.
    private static func appendBytes(_ value: [UInt8], into bytes: inout [UInt8]) {
        bytes.appendTag(.bytes)
        bytes.appendVarint(value.count)
        bytes.append(contentsOf: value)
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
