/// The encoding of the `Codable` arguments and results of calls between processes.
///
/// ## Encoding
///
/// A message is one value: a tag byte (``WireTag``) and what the tag says follows. Integers of every
/// width are a sign tag and a varint of the magnitude, floating-point numbers their IEEE bits
/// little-endian, strings a varint byte count and UTF-8, `[UInt8]` a count and the bytes; an
/// unkeyed container is its byte length, its count and its elements; a keyed container its byte
/// length and its entries, each the key's string and the value. The standard library's scalars,
/// `String`, arrays of them and `[UInt8]` take fast paths that write and read them in place; other
/// values go through `Encoder` and `Decoder` as usual.
///
/// Keys travel as strings, not as positions, so that peers built against different minor versions
/// of a contract understand each other where one only added: an entry the reader's type does not
/// know is skipped, and a key the writer did not know is missing, which `decodeIfPresent` (and so a
/// synthesized Optional, or `decodeIfPresent(...) ?? default` in an `init(from:)`) reads as nil.
/// Containers carry their byte length so that skipping an entry costs nothing.
///
/// The bytes come from another process, which runs a plugin, so nothing in them is believed: every
/// count and length is checked against the bytes that remain before anything is read or allocated
/// for it, values nest at most ``maximumDepth`` deep, an integer that does not fit the type asked for
/// and a string that is not UTF-8 are errors. No input crashes, traps, hangs or makes the decoder
/// allocate more than a small multiple of its own size; bad input is a ``Failure`` naming what and
/// where.
enum WireFormat {
    /// How deep values may nest (containers within containers, and values encoding themselves
    /// through single-value containers); deeper is refused both ways, so a hostile message cannot
    /// exhaust the stack of the thread that decodes it.
    static let maximumDepth = 256

    /// Appends `value`'s encoding to `bytes`; on a ``Failure``, `bytes` is left as it was.
    static func encode<T: Encodable>(_ value: T, into bytes: inout [UInt8]) throws {
        if WireScalarEncoding.encode(value, into: &bytes) { return }
        do {
            let root = WireNode()
            try value.encode(to: WireEncoder(node: root, codingPath: [], depth: 1))
            let size = try root.measure()
            bytes.reserveCapacity(bytes.count + size)
            root.write(into: &bytes)
        } catch {
            throw Failure(error)
        }
    }

    /// The value encoded in exactly `bytes` (all of them).
    static func decode<T: Decodable>(_ type: T.Type, from bytes: ArraySlice<UInt8>) throws -> T {
        do {
            var reader = WireReader(bytes, in: bytes.startIndex..<bytes.endIndex)
            let value: WireValue
            do throws(WireCorruption) {
                value = try reader.value()
                guard reader.isAtEnd else { throw WireCorruption("\(reader.remaining) bytes after the value") }
            } catch {
                throw error.decodingError(at: [])
            }
            return try WireDecoder.decode(type, from: value, in: bytes, at: [], depth: 1)
        } catch {
            throw Failure(error)
        }
    }
}
