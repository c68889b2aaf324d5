@testable import PluginActors
import Testing

/// A small seeded generator (SplitMix64), so every run tries the same cases.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// A value with a little of everything the format has.
struct Assorted: Codable, Equatable {
    var greeting: Greeting
    var shapes: [Shape]
    var byName: [String: Int8]
    var bytes: [UInt8]
    var maybe: Double?
    var wide: UInt64
}

@Suite struct WireFormatFuzzTests {
    /// Valid encodings to mutate, with a decode of each type they may be read as.
    private static func seeds() throws -> [[UInt8]] {
        let assorted = Assorted(
            greeting: Greeting(name: "fuzz ✓", count: -42, tags: ["a", "bb", ""]),
            shapes: [.circle(radius: 1), .labelled("l", inner: [.rectangle(2, 3), .empty])],
            byName: ["x": -1, "y": 127], bytes: [0, 1, 0x80, 0xFF], maybe: 0.5, wide: .max)
        return [
            try Wire.encoded(assorted),
            try Wire.encoded(Greeting(name: "n", count: 1, tags: ["t"])),
            try Wire.encoded(Chain.of(depth: 20)),
            try Wire.encoded([[1, 2], [3]] as [[Int]]),
            try Wire.encoded(Optionals(some: 1, none: nil, nested: nil, list: [nil, 2])),
        ]
    }

    /// Decodes `bytes` as each type the seeds are; each decode returns or throws a Failure.
    private static func decodeAsEveryType(_ bytes: [UInt8]) -> (decoded: Int, failed: Int) {
        var decoded = 0
        var failed = 0
        func attempt<T: Decodable>(_ type: T.Type, check: (T) -> Bool = { _ in true }) {
            do {
                let value = try WireFormat.decode(type, from: bytes[...])
                #expect(check(value))
                decoded += 1
            } catch let failure as WireFormat.Failure {
                #expect(!failure.description.isEmpty)
                failed += 1
            } catch {
                Issue.record("not a WireFormat.Failure: \(error)")
            }
        }
        // What is decoded never holds more elements than the message has bytes.
        attempt(Assorted.self) { $0.bytes.count + $0.shapes.count + $0.byName.count <= bytes.count }
        attempt(Greeting.self) { $0.tags.count <= bytes.count }
        attempt(Chain.self)
        attempt([[Int]].self) { $0.count <= bytes.count }
        attempt(Optionals.self)
        attempt([String: [UInt8]].self)
        return (decoded, failed)
    }

    /// `bytes` changed in one of several ways: bytes flipped or set to extremes, cut short, a range
    /// removed, duplicated or filled with random bytes.
    private static func mutated(_ bytes: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        guard !bytes.isEmpty else { return bytes }
        let index = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        case 1:
            bytes[index] = [0, 0x7F, 0x80, 0xFF].randomElement(using: &random) ?? 0
        case 2:
            bytes.removeLast(bytes.count - index)
        case 3:
            bytes.removeSubrange(index..<min(bytes.count, index + Int.random(in: 1...8, using: &random)))
        case 4:
            let end = min(bytes.count, index + Int.random(in: 1...16, using: &random))
            bytes.insert(contentsOf: bytes[index..<end], at: end)
        case 5:
            bytes.insert(contentsOf: (0..<Int.random(in: 1...6, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: index)
        default:
            bytes[index] = UInt8.random(in: 0...255, using: &random)
        }
        return bytes
    }

    @Test func theSeedsDecode() throws {
        for seed in try Self.seeds() {
            #expect(Self.decodeAsEveryType(seed).decoded >= 1)
        }
    }

    @Test func mutatedAndTruncatedMessagesDecodeOrThrowNeverCrash() throws {
        var random = SeededGenerator(seed: 0x5EED_C0DE)
        var decoded = 0
        var failed = 0
        for seed in try Self.seeds() {
            for _ in 0..<800 {
                var bytes = seed
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    bytes = Self.mutated(bytes, using: &random)
                }
                let outcome = Self.decodeAsEveryType(bytes)
                decoded += outcome.decoded
                failed += outcome.failed
            }
            // Every prefix, too.
            for end in 0..<seed.count {
                let outcome = Self.decodeAsEveryType(Array(seed[..<end]))
                #expect(outcome.decoded == 0)
                failed += outcome.failed
            }
        }
        // Both outcomes happened: the mutations reached past the first byte's checks.
        #expect(decoded > 0)
        #expect(failed > 0)
    }

    /// Random bytes, not derived from an encoding.
    @Test func randomBytesDecodeOrThrowNeverCrash() {
        var random = SeededGenerator(seed: 33)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...64, using: &random)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = Self.decodeAsEveryType(bytes)
        }
    }
}
