/// Reads a body from the front, checking every length against what remains.
struct FrameReader {
    private(set) var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    struct Truncated: Error {}

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(Truncated) -> T {
        let size = MemoryLayout<T>.size
        guard rest.count >= size else { throw Truncated() }
        var value: T = 0
        for (shift, byte) in rest.prefix(size).enumerated() { value |= T(byte) << (shift * 8) }
        rest.removeFirst(size)
        return value
    }

    mutating func bytes(_ count: Int) throws(Truncated) -> ArraySlice<UInt8> {
        guard count >= 0, rest.count >= count else { throw Truncated() }
        defer { rest.removeFirst(count) }
        return rest.prefix(count)
    }

    /// A `UInt16`-prefixed UTF-8 text (invalid UTF-8 repaired, never trusted).
    mutating func shortText() throws(Truncated) -> String {
        let count = Int(try integer(UInt16.self))
        return String(decoding: try bytes(count), as: UTF8.self)
    }
}
