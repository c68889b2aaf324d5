/// Bytes that are not a valid message: what is wrong, without the coding path, which the container
/// that was reading adds when it turns this into a `DecodingError` (``decodingError(at:)``).
struct WireCorruption: Error {
    /// What is wrong, e.g. "a count of 900 where 12 bytes remain".
    let what: String

    init(_ what: String) {
        self.what = what
    }

    /// A value cut short by the end of its container.
    static let endsEarly = WireCorruption("the bytes end in the middle of a value")

    /// A varint of more than 64 bits.
    static let tooLong = WireCorruption("an integer longer than 64 bits")

    /// A count or length larger than the bytes that remain. (Out of line, so the readers' checks
    /// stay small enough to inline.)
    @inline(never)
    static func count(_ count: UInt64, remaining: Int) -> WireCorruption {
        WireCorruption("a count of \(count) where \(remaining) bytes remain")
    }

    /// A byte that is not a tag.
    @inline(never)
    static func unknownTag(_ byte: UInt8) -> WireCorruption {
        WireCorruption("an unknown tag \(byte)")
    }

    /// The `DecodingError.dataCorrupted` this is at `codingPath`.
    func decodingError(at codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: what))
    }
}
