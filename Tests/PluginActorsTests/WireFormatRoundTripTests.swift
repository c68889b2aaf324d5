@testable import PluginActors
import Testing

/// Encodes and decodes through the wire format, as the tests of this suite and the others do.
enum Wire {
    static func encoded<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try WireFormat.encode(value, into: &bytes)
        return bytes
    }

    static func roundTrip<T: Codable>(_ value: T, as type: T.Type = T.self) throws -> T {
        try WireFormat.decode(type, from: encoded(value)[...])
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: some Encodable) throws -> T {
        try WireFormat.decode(type, from: encoded(value)[...])
    }
}

struct Greeting: Codable, Equatable {
    var name: String
    var count: Int
    var tags: [String]
}

struct Scalars: Codable, Equatable {
    var int8: Int8, int16: Int16, int32: Int32, int64: Int64, int: Int
    var uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64, uint: UInt
    var float: Float, double: Double, yes: Bool, no: Bool
}

enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(Double, Double)
    case labelled(String, inner: [Shape])
    case empty
}

enum Suit: String, Codable { case hearts, spades }

/// Writes its containers out of order, as `Encoder` allows: the second nested container is made
/// before the first is filled, and the outer one is written to last.
struct Interleaved: Codable, Equatable {
    var first: [Int]
    var second: [String: Int]
    var last: String

    enum CodingKeys: String, CodingKey { case first, second, last }
    enum Inner: String, CodingKey { case value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var firstContainer = container.nestedUnkeyedContainer(forKey: .first)
        var secondContainer = container.nestedContainer(keyedBy: AnyKey.self, forKey: .second)
        try container.encode(last, forKey: .last)
        for (key, value) in second.sorted(by: { $0.key < $1.key }) {
            try secondContainer.encode(value, forKey: AnyKey(key))
        }
        for element in first { try firstContainer.encode(element) }
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

class Animal: Codable {
    var legs: Int
    init(legs: Int) { self.legs = legs }
}

final class Dog: Animal {
    var name: String
    init(name: String, legs: Int) {
        self.name = name
        super.init(legs: legs)
    }

    enum CodingKeys: String, CodingKey { case name }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try super.encode(to: container.superEncoder())
    }
}

struct Empty: Codable, Equatable {}

struct Optionals: Codable, Equatable {
    var some: Int?
    var none: String?
    var nested: Greeting?
    var list: [Int?]
}

@Suite struct WireFormatRoundTripTests {
    @Test func aSmallStructRoundTrips() throws {
        let greeting = Greeting(name: "Ada", count: 3, tags: ["a", "", "long tag ✓"])
        #expect(try Wire.roundTrip(greeting) == greeting)
    }

    @Test func everyIntegerWidthRoundTripsItsExtremes() throws {
        let low = Scalars(int8: .min, int16: .min, int32: .min, int64: .min, int: .min,
                          uint8: .min, uint16: .min, uint32: .min, uint64: .min, uint: .min,
                          float: -.greatestFiniteMagnitude, double: -.leastNonzeroMagnitude, yes: true, no: false)
        let high = Scalars(int8: .max, int16: .max, int32: .max, int64: .max, int: .max,
                           uint8: .max, uint16: .max, uint32: .max, uint64: .max, uint: .max,
                           float: .infinity, double: .pi, yes: true, no: false)
        #expect(try Wire.roundTrip(low) == low)
        #expect(try Wire.roundTrip(high) == high)
        #expect(try Wire.roundTrip(Double.nan).isNaN)
        #expect(try Wire.roundTrip(-0.0 as Double).sign == .minus)
    }

    @Test func stringsWithAnyUnicodeRoundTrip() throws {
        let strings = ["", "\u{0}", "e\u{301}", "👩‍👩‍👧‍👦", "עִבְרִית", "\u{1B}[31m", String(repeating: "ß", count: 300)]
        for string in strings {
            #expect(try Wire.roundTrip(string) == string)
        }
        #expect(try Wire.roundTrip(strings) == strings)
    }

    @Test func enumsWithAssociatedValuesRoundTrip() throws {
        let shapes: [Shape] = [
            .circle(radius: 2.5), .rectangle(1, 2), .empty,
            .labelled("group", inner: [.circle(radius: 1), .labelled("", inner: [])]),
        ]
        #expect(try Wire.roundTrip(shapes) == shapes)
        #expect(try Wire.roundTrip([Suit.hearts, .spades]) == [.hearts, .spades])
    }

    @Test func optionalsRoundTrip() throws {
        let values = Optionals(some: 4, none: nil, nested: Greeting(name: "n", count: -1, tags: []), list: [1, nil, 3])
        #expect(try Wire.roundTrip(values) == values)
        #expect(try Wire.roundTrip(Optionals(some: nil, none: "x", nested: nil, list: [])) ==
            Optionals(some: nil, none: "x", nested: nil, list: []))
        #expect(try Wire.roundTrip(Int?.none) == nil)
    }

    @Test func containersWrittenOutOfOrderRoundTrip() throws {
        let value = Interleaved(first: [1, 2, 3], second: ["b": 2, "a": 1], last: "end")
        #expect(try Wire.roundTrip(value) == value)
    }

    @Test func aSuperclassRoundTripsThroughSuperEncoder() throws {
        let dog = try Wire.roundTrip(Dog(name: "Rex", legs: 3))
        #expect(dog.name == "Rex")
        #expect(dog.legs == 3)
    }

    @Test func emptyContainersRoundTrip() throws {
        #expect(try Wire.roundTrip(Empty()) == Empty())
        #expect(try Wire.roundTrip([Int]()) == [])
        #expect(try Wire.roundTrip([String: Int]()) == [:])
        #expect(try Wire.roundTrip([UInt8]()) == [])
        #expect(try Wire.roundTrip([[Empty]]([[], [Empty()]])) == [[], [Empty()]])
    }

    @Test func collectionsRoundTrip() throws {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(try Wire.roundTrip(bytes) == bytes)
        let strings = (0..<200).map { "element \($0)" }
        #expect(try Wire.roundTrip(strings) == strings)
        let nested: [[Int]] = [[], [1], [-1, Int.min, Int.max]]
        #expect(try Wire.roundTrip(nested) == nested)
        let byName = ["one": 1, "two": 2, "": 0]
        #expect(try Wire.roundTrip(byName) == byName)
        let byNumber = [1: "one", -2: "minus two"]
        #expect(try Wire.roundTrip(byNumber) == byNumber)
        let greetings = (0..<50).map { Greeting(name: "g\($0)", count: $0, tags: ["t"]) }
        #expect(try Wire.roundTrip(greetings) == greetings)
        let sets: Set<Int16> = [1, -300, 7]
        #expect(try Wire.roundTrip(sets) == sets)
        #expect(try Wire.roundTrip([true, false]) == [true, false])
        #expect(try Wire.roundTrip([1.5, -2]) == [1.5, -2])
    }

    /// `[UInt8]` travels as bytes; read through an unkeyed container (as another integer array)
    /// each byte is an element.
    @Test func bytesReadAsAnyIntegerArray() throws {
        #expect(try Wire.decode([Int].self, from: [UInt8]([0, 200, 255])) == [0, 200, 255])
        #expect(try Wire.decode([UInt8].self, from: [Int]([1, 2])) == [1, 2])
    }

    /// Integers of every width share a representation, so a field may widen; numbers narrow only
    /// where they fit.
    @Test func integersConvertBetweenWidthsWhereTheyFit() throws {
        #expect(try Wire.decode(Int64.self, from: Int8(-5)) == -5)
        #expect(try Wire.decode(UInt8.self, from: 255) == 255)
        #expect(try Wire.decode(Double.self, from: Float(1.5)) == 1.5)
        #expect(try Wire.decode(Float.self, from: 0.25) == 0.25)
    }

    /// The lead's connection decodes a frame's payload from the middle of its buffer.
    @Test func aValueDecodesFromASliceOfALargerBuffer() throws {
        let greeting = Greeting(name: "mid", count: 9, tags: ["x"])
        let buffer: [UInt8] = [0xFF, 0xFE] + (try Wire.encoded(greeting)) + [0xFD]
        #expect(try WireFormat.decode(Greeting.self, from: buffer[2..<(buffer.count - 1)]) == greeting)
    }

    @Test func encodingAppendsToWhatIsThere() throws {
        var bytes: [UInt8] = [42]
        try WireFormat.encode("hi", into: &bytes)
        #expect(bytes == [42, WireTag.string.rawValue, 2, 0x68, 0x69])
    }
}
