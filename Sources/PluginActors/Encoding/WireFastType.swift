/// The types with fast paths (``WireScalarEncoding``, ``WireScalarDecoding``), told apart by their
/// metadata's identity, kept in statics: asking for `[String].self` anew costs a lookup in the
/// runtime's metadata cache on every call, which was a fifth of a small struct's round trip.
enum WireFastType {
    case string, bool, double, float
    case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64
    case bytes, strings, ints, doubles, bools

    /// The fast path of `type`, if it has one.
    init?(_ type: Any.Type) {
        let id = ObjectIdentifier(type)
        guard let fast = Self.byIdentity.first(where: { $0.id == id }) else { return nil }
        self = fast.type
    }

    /// Each fast type's metadata, the most common first.
    private static let byIdentity: [(id: ObjectIdentifier, type: WireFastType)] = [
        (ObjectIdentifier(String.self), .string), (ObjectIdentifier(Int.self), .int),
        (ObjectIdentifier([String].self), .strings), (ObjectIdentifier(Bool.self), .bool),
        (ObjectIdentifier(Double.self), .double), (ObjectIdentifier([UInt8].self), .bytes),
        (ObjectIdentifier([Int].self), .ints), (ObjectIdentifier(Float.self), .float),
        (ObjectIdentifier(UInt8.self), .uint8), (ObjectIdentifier(Int64.self), .int64),
        (ObjectIdentifier(UInt64.self), .uint64), (ObjectIdentifier(Int32.self), .int32),
        (ObjectIdentifier(UInt32.self), .uint32), (ObjectIdentifier(UInt.self), .uint),
        (ObjectIdentifier(Int16.self), .int16), (ObjectIdentifier(UInt16.self), .uint16),
        (ObjectIdentifier(Int8.self), .int8), (ObjectIdentifier([Double].self), .doubles),
        (ObjectIdentifier([Bool].self), .bools),
    ]
}
