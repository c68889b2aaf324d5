/// The first byte of every value in the wire format (``WireFormat``): what kind of value follows, and
/// so how far it reaches. Integers of every width share two tags, so a field may widen (`Int32` to
/// `Int64`) without breaking an old peer; the reader checks the value fits the type asked for.
enum WireTag: UInt8 {
    /// `nil`; nothing follows.
    case null = 0
    /// `false`; nothing follows.
    case `false` = 1
    /// `true`; nothing follows.
    case `true` = 2
    /// A non-negative integer n: the varint of n follows.
    case positive = 3
    /// A negative integer n: the varint of -1 - n (n's bits inverted) follows.
    case negative = 4
    /// A `Float`: its 4 bytes, little-endian.
    case float32 = 5
    /// A `Double`: its 8 bytes, little-endian.
    case float64 = 6
    /// A `String`: a varint byte count, then that many bytes of UTF-8.
    case string = 7
    /// A `[UInt8]`: a varint count, then the bytes.
    case bytes = 8
    /// An unkeyed container: a varint byte count of the rest, a varint element count, the elements.
    case unkeyed = 9
    /// A keyed container: a varint byte count of the rest, then its entries, each a key (a varint byte
    /// count and UTF-8, no tag) and the key's value.
    case keyed = 10
    /// Never on the wire: one element of a `.bytes` value read through an unkeyed container; its
    /// payload is that one byte.
    case byteElement = 255

    /// The tag `byte` stands for, if it is one that may appear on the wire.
    init?(wireByte byte: UInt8) {
        guard let tag = WireTag(rawValue: byte), tag != .byteElement else { return nil }
        self = tag
    }

    /// What a value with this tag is, for error messages ("expected a String, found an integer").
    var described: String {
        switch self {
        case .null: "nil"
        case .false, .true: "a Bool"
        case .positive, .negative, .byteElement: "an integer"
        case .float32, .float64: "a floating-point number"
        case .string: "a String"
        case .bytes: "bytes"
        case .unkeyed: "an unkeyed container"
        case .keyed: "a keyed container"
        }
    }
}
