@testable import PluginActors
import Testing

struct Labelled: Codable {
    var label: String
    var inner: Greeting
}

/// A list as deep as it is long.
indirect enum Chain: Codable {
    case end
    case link(Chain)

    var length: Int {
        var length = 0
        var rest = self
        while case .link(let next) = rest {
            length += 1
            rest = next
        }
        return length
    }

    static func of(depth: Int) -> Chain {
        var chain = Chain.end
        for _ in 0..<depth { chain = .link(chain) }
        return chain
    }
}

/// Asks one value for two kinds of container, which `Encoder` does not allow.
struct TwoContainers: Encodable {
    func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: AnyKey.self)
        try keyed.encode(1, forKey: AnyKey("a"))
        var unkeyed = encoder.unkeyedContainer()
        try unkeyed.encode(2)
    }
}

/// A keyed container of one entry.
private func keyed(_ key: String, _ value: [UInt8]) -> [UInt8] {
    var entry: [UInt8] = []
    entry.appendKey(key)
    entry += value
    var container: [UInt8] = [WireTag.keyed.rawValue]
    container.appendVarint(entry.count)
    return container + entry
}

@Suite struct WireFormatErrorTests {
    /// The failure for `bytes` decoded as `type`.
    private func decodingFailure<T: Decodable>(decoding type: T.Type, from bytes: [UInt8]) -> WireFormat.Failure? {
        #expect(throws: WireFormat.Failure.self) { try WireFormat.decode(type, from: bytes[...]) }
    }

    @Test func aTypeMismatchNamesItsPath() throws {
        // Strings where the reader's tags are Ints.
        struct Numbers: Codable { var label: String; var inner: NumberGreeting }
        struct NumberGreeting: Codable { var name: String; var count: Int; var tags: [Int] }
        let value = Labelled(label: "l", inner: Greeting(name: "n", count: 1, tags: ["a", "b"]))
        let failure = #expect(throws: WireFormat.Failure.self) { try Wire.decode(Numbers.self, from: value) }
        #expect(failure?.kind == .typeMismatch)
        #expect(failure?.path == "inner.tags[0]")
        #expect(failure?.description == "typeMismatch at inner.tags[0]: expected Int, found a String")
    }

    @Test func aStringWhereAnIntIsNamesTheField() throws {
        struct CountAsText: Codable { var name: String; var count: String; var tags: [String] }
        let failure = #expect(throws: WireFormat.Failure.self) {
            try Wire.decode(CountAsText.self, from: Greeting(name: "n", count: 4, tags: []))
        }
        #expect(failure?.kind == .typeMismatch)
        #expect(failure?.path == "count")
    }

    @Test func nilWhereAValueIsRequiredIsValueNotFound() throws {
        let failure = #expect(throws: WireFormat.Failure.self) { try Wire.decode([Int].self, from: [1, nil] as [Int?]) }
        #expect(failure?.kind == .valueNotFound)
        #expect(failure?.path == "[1]")
    }

    @Test func anIntegerOutOfRangeThrowsInsteadOfTrapping() throws {
        #expect(throws: WireFormat.Failure.self) { try Wire.decode(UInt8.self, from: 256) }
        #expect(throws: WireFormat.Failure.self) { try Wire.decode(UInt64.self, from: -1) }
        #expect(throws: WireFormat.Failure.self) { try Wire.decode(Int8.self, from: Int64.min) }
        #expect(throws: WireFormat.Failure.self) { try Wire.decode(Int64.self, from: UInt64.max) }
        #expect(throws: WireFormat.Failure.self) { try Wire.decode(Float.self, from: Double.greatestFiniteMagnitude) }
    }

    @Test func bytesAfterTheValueAreRefused() throws {
        let failure = decodingFailure(decoding: Int.self, from: try Wire.encoded(5) + [0])
        #expect(failure?.what == "1 bytes after the value")
    }

    @Test func aCountLargerThanTheBytesLeftIsRefusedBeforeAllocating() throws {
        // An unkeyed container of 6 bytes claiming a billion elements, and a string claiming 2^62 bytes.
        var claim: [UInt8] = [WireTag.unkeyed.rawValue, 5]
        claim.appendVarint(UInt64(1_000_000_000))
        let failure = decodingFailure(decoding: [String].self, from: claim)
        #expect(failure?.kind == .dataCorrupted)
        #expect(failure?.what.hasPrefix("a count of 1000000000") == true)
        var long: [UInt8] = [WireTag.string.rawValue]
        long.appendVarint(UInt64(1) << 62)
        #expect(decodingFailure(decoding: String.self, from: long)?.kind == .dataCorrupted)
    }

    @Test func malformedPrimitivesAreDataCorrupted() throws {
        #expect(decodingFailure(decoding: Int.self, from: [200])?.what == "an unknown tag 200")
        #expect(decodingFailure(decoding: Int.self, from: [WireTag.byteElement.rawValue]) != nil)
        #expect(decodingFailure(decoding: Int.self, from: [WireTag.positive.rawValue] + [UInt8](repeating: 0xFF, count: 10) + [1])?
            .what == "an integer longer than 64 bits")
        #expect(decodingFailure(decoding: String.self, from: [WireTag.string.rawValue, 2, 0xC3, 0x28])?.what ==
            "a String that is not valid UTF-8")
        #expect(decodingFailure(decoding: Double.self, from: [WireTag.float64.rawValue, 0, 0])?.kind == .dataCorrupted)
        #expect(decodingFailure(decoding: Int.self, from: [])?.kind == .dataCorrupted)
    }

    @Test func valuesNestedTooDeepAreRefusedBothWays() throws {
        // Each link is two levels: the enum's keyed container and its case's.
        #expect(try Wire.roundTrip(Chain.of(depth: 100)).length == 100)
        let encoding = #expect(throws: WireFormat.Failure.self) { try Wire.encoded(Chain.of(depth: 200)) }
        #expect(encoding?.kind == .invalidValue)
        // Hand-made: 1,000 links, each a keyed container whose "link" is a keyed container whose
        // "_0" is the next link, as `Chain` is written.
        var deep = keyed("end", [WireTag.keyed.rawValue, 0])
        for _ in 0..<1_000 {
            deep = keyed("link", keyed("_0", deep))
        }
        let decoding = decodingFailure(decoding: Chain.self, from: deep)
        #expect(decoding?.what == "values nested deeper than 256 levels")
    }

    @Test func twoKindsOfContainerForOneValueFailWithoutTrapping() throws {
        let failure = #expect(throws: WireFormat.Failure.self) { try Wire.encoded(TwoContainers()) }
        #expect(failure?.kind == .invalidValue)
    }

    @Test func errorsThrownByATypeAreTold() throws {
        struct Refusing: Codable {
            struct Refused: Error {}
            init() {}
            init(from decoder: any Decoder) throws { throw Refused() }
        }
        let failure = #expect(throws: WireFormat.Failure.self) { try Wire.roundTrip(Refusing()) }
        #expect(failure?.kind == .thrownByType)
        #expect(failure?.what.contains("Refused") == true)
    }

    /// A dictionary's keys come from the other process; control characters in them are escaped.
    @Test func controlCharactersInAPathAreEscaped() throws {
        let failure = #expect(throws: WireFormat.Failure.self) {
            try Wire.decode([String: Int].self, from: ["\u{1B}[2J": "not a number"])
        }
        #expect(failure?.path == "\\u{1B}[2J")
    }
}
