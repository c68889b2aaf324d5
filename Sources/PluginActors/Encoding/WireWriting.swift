/// The writing half of the wire format's primitives (``WireReader`` is the reading half): each appends
/// one value, tag first, to a message being built.
extension Array where Element == UInt8 {
    /// Appends `value` as a varint (LEB128, seven bits a byte, low first).
    mutating func appendVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        append(UInt8(rest))
    }

    /// Appends `value` as a varint.
    mutating func appendVarint(_ value: Int) {
        appendVarint(UInt64(truncatingIfNeeded: value))
    }

    /// Appends a tag.
    mutating func appendTag(_ tag: WireTag) {
        append(tag.rawValue)
    }

    /// Appends an integer of any width: its sign as the tag, then its magnitude (negative values as
    /// -1 - value, so `Int64.min` fits) as a varint.
    mutating func appendInteger<Integer: FixedWidthInteger>(_ value: Integer) {
        if value < 0 {
            appendTag(.negative)
            appendVarint(UInt64(truncatingIfNeeded: ~Int64(truncatingIfNeeded: value)))
        } else {
            appendTag(.positive)
            appendVarint(UInt64(truncatingIfNeeded: value))
        }
    }

    /// Appends a Bool.
    mutating func appendBool(_ value: Bool) {
        appendTag(value ? .true : .false)
    }

    /// Appends a Float: its bits, little-endian.
    mutating func appendFloat(_ value: Float) {
        appendTag(.float32)
        appendLittleEndian(UInt64(value.bitPattern), byteCount: 4)
    }

    /// Appends a Double: its bits, little-endian.
    mutating func appendDouble(_ value: Double) {
        appendTag(.float64)
        appendLittleEndian(value.bitPattern, byteCount: 8)
    }

    /// Appends a String: its UTF-8 byte count, then its UTF-8.
    mutating func appendString(_ value: String) {
        appendTag(.string)
        appendKey(value)
    }

    /// Appends a keyed container's key: a String without its tag.
    mutating func appendKey(_ key: String) {
        let utf8 = key.utf8
        appendVarint(utf8.count)
        append(contentsOf: utf8)
    }

    /// Appends a container with `tag`: the byte count of what `body` appends, then what it appended.
    /// The count is written after the body, in one byte reserved for it, moved along when it needs
    /// more (a body of 128 bytes or more): one move of the body at most.
    mutating func appendContainer(_ tag: WireTag, _ body: (inout [UInt8]) -> Void) {
        appendTag(tag)
        let lengthIndex = count
        append(0)
        body(&self)
        let length = count - lengthIndex - 1
        if length < 0x80 {
            self[lengthIndex] = UInt8(length)
        } else {
            var prefix: [UInt8] = []
            prefix.appendVarint(length)
            replaceSubrange(lengthIndex..<(lengthIndex + 1), with: prefix)
        }
    }

    /// Appends the `byteCount` low bytes of `bits`, low first.
    private mutating func appendLittleEndian(_ bits: UInt64, byteCount: Int) {
        for index in 0..<byteCount {
            append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index))))
        }
    }

    /// How many bytes the varint of `value` takes.
    static func varintSize(of value: Int) -> Int {
        var size = 1
        var rest = UInt64(truncatingIfNeeded: value) >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }
}
