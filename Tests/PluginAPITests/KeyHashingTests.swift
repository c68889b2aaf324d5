@_spi(HostKit) import PluginAPI
import Testing

/// The locator hashes a store key itself, eight bytes at a time with the last bytes apart (its tables
/// keep that hash beside each slot): keys of every length around those edges, keys that differ in one
/// byte only, and keys built in other ways, are each found, in the mutable and the read-only table.
@Suite struct KeyHashingTests {
    /// Keys of 0 to 40 bytes, each also with its last byte changed (the tail) and its first (a word).
    private static let keys: [String] = (0...40).flatMap { length -> [String] in
        let base = String(repeating: "k", count: length)
        guard length > 1 else { return [base] }
        return [base, String(base.dropLast()) + "x", "x" + String(base.dropFirst())]
    }

    private static func locator(readOnly: Bool) throws -> ServiceLocator {
        let locator = ServiceLocator()
        for (index, key) in keys.enumerated() {
            try locator.addService(key: ServiceLocatorEasyKey<Int>(name: key), service: index)
        }
        if readOnly { locator.setReadOnly() }
        return locator
    }

    @Test(arguments: [false, true]) func everyKeyFindsItsOwnService(readOnly: Bool) throws {
        let locator = try Self.locator(readOnly: readOnly)
        for (index, key) in Self.keys.enumerated() {
            #expect(try locator.tryService(key: ServiceLocatorEasyKey<Int>(name: key)) == index, "\(key.utf8.count) bytes")
            // The same characters, made at run time in another way (a large string, not a literal's storage).
            let rebuilt = String(decoding: Array(key.utf8), as: UTF8.self)
            #expect(try locator.tryService(key: ServiceLocatorEasyKey<Int>(name: rebuilt)) == index)
        }
        for missing in ["", "y", "kkkkkkky", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"] where !Self.keys.contains(missing) {
            #expect(locator.getService(key: ServiceLocatorEasyKey<Int>(name: missing)) == nil, "\(missing)")
        }
    }

    /// Keys are equal as Swift's strings are: a key written in another, canonically equivalent way
    /// (composed or not; a Kelvin sign for a K) finds the same service, as it did when the locator
    /// hashed keys with `String.hashValue`.
    @Test(arguments: [false, true]) func aKeyWrittenAnotherEquivalentWayFindsTheSameService(readOnly: Bool) throws {
        let locator = ServiceLocator()
        let pairs = [("caf\u{E9}.menu", "cafe\u{301}.menu"), ("service.K", "service.\u{212A}"),
                     ("a;b", "a\u{37E}b"), ("\u{212A}elvin.\u{E9}", "Kelvin.e\u{301}")]
        for (index, (registered, _)) in pairs.enumerated() {
            try locator.addService(key: ServiceLocatorEasyKey<Int>(name: registered), service: index)
        }
        if readOnly { locator.setReadOnly() }
        for (index, (registered, equivalent)) in pairs.enumerated() {
            #expect(registered == equivalent)
            #expect(try locator.tryService(key: ServiceLocatorEasyKey<Int>(name: equivalent)) == index, "\(equivalent)")
        }
        if !readOnly {
            #expect(throws: ServiceLocatorError.self) {
                try locator.addService(key: ServiceLocatorEasyKey<Int>(name: "service.\u{212A}"), service: 9)
            }
        }
    }

    @Test(arguments: [false, true]) func keysOfOtherScriptsAreFoundByTheirBytes(readOnly: Bool) throws {
        let locator = ServiceLocator()
        let keys = ["größe", "gro\u{0308}sse", "サービス.一", "サービス.二", "🙂.service.with.a.long.name"]
        for (index, key) in keys.enumerated() {
            try locator.addService(key: ServiceLocatorEasyKey<Int>(name: key), service: index)
        }
        if readOnly { locator.setReadOnly() }
        for (index, key) in keys.enumerated() {
            #expect(try locator.tryService(key: ServiceLocatorEasyKey<Int>(name: key)) == index)
        }
    }
}
