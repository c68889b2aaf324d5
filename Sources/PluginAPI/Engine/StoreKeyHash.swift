/// The hash of a store key that the locator's tables keep and a get computes: for a key of ASCII
/// characters (service keys are, almost always), the same in every process and cheap for the short
/// keys services are named by.
///
/// Not `String.hashValue` there: Swift seeds that per process (SipHash-1-3), which costs a get about
/// 280 instructions, and puts a key's neighbours in a different place each run, so one process's gets
/// cost up to twice another's. A seed guards a table against keys chosen to collide; a locator's keys
/// come from its host and its plugins' declarations, never from a request, and a full 64-bit hash is
/// kept beside each slot, so only keys of equal hashes ever have their characters compared.
///
/// Keys are equal as Swift's strings are (canonically equivalent), so equal keys must hash alike: a key
/// with other characters is hashed by `String.hashValue`, which normalizes, unless it is equivalent to
/// an ASCII key (only three characters decompose to ASCII ones: U+037E, U+1FEF, U+212A), which is
/// hashed as that key.
enum StoreKeyHash {
    /// The hash of `key`.
    @inline(__always)
    static func of(_ key: String) -> Int {
        if let hash = key.utf8.withContiguousStorageIfAvailable(asciiHash), let hash { return hash }
        return otherHash(key)
    }

    /// A key that is not ASCII, or not contiguous UTF-8.
    private static func otherHash(_ key: String) -> Int {
        // A character that is neither ASCII nor one of the three: no ASCII key is equal to it (and no
        // new string is made for it, on every get).
        guard key.unicodeScalars.allSatisfy({ $0.isASCII || asciiForm(of: $0) != nil }) else { return key.hashValue }
        let scalars = key.unicodeScalars.map { asciiForm(of: $0) ?? $0 }
        return Array(String(String.UnicodeScalarView(scalars)).utf8).withUnsafeBufferPointer(asciiHash) ?? key.hashValue
    }

    /// The ASCII character `scalar` is canonically equal to, for the three that decompose to one.
    private static func asciiForm(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x037E: ";"
        case 0x1FEF: "`"
        case 0x212A: "K"
        default: nil
        }
    }

    /// Eight bytes at a time, each word multiplied in; the last one to eight bytes (the last eight,
    /// overlapping, for a key that long) mixed in by splitmix64's finalizer, the length first. Nil if
    /// a byte is not ASCII.
    static func asciiHash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = bytes.count
        var state = 0x9E37_79B9_7F4A_7C15 &* UInt64(count &+ 1)
        guard let base = bytes.baseAddress.map(UnsafeRawPointer.init) else { return Int(bitPattern: UInt(mix(state))) }
        var seen: UInt64 = 0
        var offset = 0
        while offset &+ 8 < count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            seen |= word
            state = (state ^ word) &* 0xBF58_476D_1CE4_E5B9
            state ^= state >> 29
            offset &+= 8
        }
        var last: UInt64 = 0
        if count >= 8 {
            last = base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        } else {
            for index in 0..<count { last |= UInt64(base.load(fromByteOffset: index, as: UInt8.self)) << (UInt64(index) &* 8) }
        }
        guard (seen | last) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return Int(bitPattern: UInt(mix(state ^ last)))
    }

    @inline(__always)
    private static func mix(_ word: UInt64) -> UInt64 {
        var mixed = (word ^ (word >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
