/// A cursor over part of a message that checks every length and count against the bytes that remain
/// before it believes it, so no input makes it read out of bounds, loop without progress or ask for
/// more memory than the message's own size. It never copies the message.
struct WireReader {
    /// The whole message.
    let bytes: ArraySlice<UInt8>
    /// The index of the next byte to read.
    private(set) var position: Int
    /// The index past the last byte this reader may read (the end of its container).
    let end: Int

    /// A reader of `bytes[range]`, which lies within `bytes`.
    init(_ bytes: ArraySlice<UInt8>, in range: Range<Int>) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { position >= end }

    /// How many bytes are left.
    var remaining: Int { end - position }

    /// The next byte.
    mutating func byte() throws(WireCorruption) -> UInt8 {
        guard position < end else { throw WireCorruption("the bytes end in the middle of a value") }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next varint (LEB128: seven bits a byte, low first, the high bit set on all but the last):
    /// at most ten bytes, at most 64 bits.
    mutating func varint() throws(WireCorruption) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte()
            if shift == 63, byte > 1 {
                throw WireCorruption("an integer longer than 64 bits")
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// The next varint as a count of things that each take at least `unitSize` bytes of what remains:
    /// a count the remaining bytes cannot hold is refused before anyone allocates for it.
    mutating func count(eachAtLeast unitSize: Int) throws(WireCorruption) -> Int {
        let count = try varint()
        let room = remaining / unitSize
        guard count <= UInt64(room) else {
            throw WireCorruption("a count of \(count) where \(remaining) bytes remain")
        }
        return Int(count)
    }

    /// Moves past `count` bytes, which must remain.
    mutating func skip(_ count: Int) throws(WireCorruption) {
        guard count <= remaining else {
            throw WireCorruption("\(count) bytes expected where \(remaining) remain")
        }
        position += count
    }

    /// The range of the next key of a keyed container (a varint byte count, then UTF-8).
    mutating func key() throws(WireCorruption) -> Range<Int> {
        let count = try count(eachAtLeast: 1)
        let start = position
        position += count
        return start..<position
    }

    /// The next value, moving past it: its tag and where its payload lies, checked to end within
    /// this reader's range. A container's contents are not looked at here.
    mutating func value() throws(WireCorruption) -> WireValue {
        let byte = try byte()
        guard let tag = WireTag(wireByte: byte) else { throw WireCorruption("an unknown tag \(byte)") }
        let start = position
        switch tag {
        case .null, .false, .true, .byteElement:
            break
        case .positive, .negative:
            _ = try varint()
        case .float32:
            try skip(4)
        case .float64:
            try skip(8)
        case .string, .bytes, .unkeyed, .keyed:
            let length = try count(eachAtLeast: 1)
            let payloadStart = position
            position += length
            return WireValue(tag: tag, payload: payloadStart..<position)
        }
        return WireValue(tag: tag, payload: start..<position)
    }
}
