/// Bytes that are not a valid message: what is wrong, without the coding path, which the container
/// that was reading adds when it turns this into a `DecodingError` (``decodingError(at:)``).
struct WireCorruption: Error {
    /// What is wrong, e.g. "a count of 900 where 12 bytes remain".
    let what: String

    init(_ what: String) {
        self.what = what
    }

    /// The `DecodingError.dataCorrupted` this is at `codingPath`.
    func decodingError(at codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: what))
    }
}
