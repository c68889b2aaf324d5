/// A cursor over part of a message that checks every length and count against the bytes that remain
/// before it believes it, so no input makes it read out of bounds, loop without progress or ask for
/// more memory than the message's own size. It holds only indices: each read is handed the message
/// (so making a reader retains nothing).
struct WireReader {
    /// The index of the next byte to read.
    private(set) var position: Int
    /// The index past the last byte this reader may read (the end of its container).
    let end: Int

    /// A reader of the bytes of a message in `range`, which lies within the message.
    init(in range: Range<Int>) {
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { position >= end }

    /// How many bytes are left.
    var remaining: Int { end - position }

    /// The next byte.
    @inline(__always)
    mutating func byte(of bytes: ArraySlice<UInt8>) throws(WireCorruption) -> UInt8 {
        guard position < end else { throw .endsEarly }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next varint (LEB128: seven bits a byte, low first, the high bit set on all but the last):
    /// at most ten bytes, at most 64 bits.
    @inline(__always)
    mutating func varint(of bytes: ArraySlice<UInt8>) throws(WireCorruption) -> UInt64 {
        let first = try byte(of: bytes)
        return first < 0x80 ? UInt64(first) : try varint(of: bytes, after: first)
    }

    /// The rest of a varint longer than one byte, `first` its first.
    private mutating func varint(of bytes: ArraySlice<UInt8>, after first: UInt8) throws(WireCorruption) -> UInt64 {
        var result = UInt64(first & 0x7F)
        var shift: UInt64 = 7
        while true {
            let byte = try byte(of: bytes)
            if shift == 63, byte > 1 { throw .tooLong }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// The next varint as a count of things that each take at least `unitSize` bytes of what remains:
    /// a count the remaining bytes cannot hold is refused before anyone allocates for it.
    @inline(__always)
    mutating func count(of bytes: ArraySlice<UInt8>, eachAtLeast unitSize: Int) throws(WireCorruption) -> Int {
        let count = try varint(of: bytes)
        guard count <= UInt64(remaining / unitSize) else { throw .count(count, remaining: remaining) }
        return Int(count)
    }

    /// Moves past `count` bytes, which must remain.
    mutating func skip(_ count: Int) throws(WireCorruption) {
        guard count <= remaining else { throw .count(UInt64(count), remaining: remaining) }
        position += count
    }

    /// The range of the next key of a keyed container (a varint byte count, then UTF-8).
    @inline(__always)
    mutating func key(of bytes: ArraySlice<UInt8>) throws(WireCorruption) -> Range<Int> {
        let count = try count(of: bytes, eachAtLeast: 1)
        let start = position
        position += count
        return start..<position
    }

    /// The next value, moving past it: its tag and where its payload lies, checked to end within
    /// this reader's range. A container's contents are not looked at here.
    mutating func value(of bytes: ArraySlice<UInt8>) throws(WireCorruption) -> WireValue {
        let byte = try byte(of: bytes)
        guard let tag = WireTag(wireByte: byte) else { throw .unknownTag(byte) }
        let start = position
        switch tag {
        case .null, .false, .true, .byteElement:
            break
        case .positive, .negative:
            _ = try varint(of: bytes)
        case .float32:
            try skip(4)
        case .float64:
            try skip(8)
        case .string, .bytes, .unkeyed, .keyed:
            let length = try count(of: bytes, eachAtLeast: 1)
            let payloadStart = position
            position += length
            return WireValue(tag: tag, payload: payloadStart..<position)
        }
        return WireValue(tag: tag, payload: start..<position)
    }
}
