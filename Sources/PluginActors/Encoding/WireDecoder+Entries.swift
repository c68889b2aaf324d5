/// A keyed container's entries, looked up by their keys' strings. Not generic, unlike
/// ``WireKeyedDecodingContainer``, so none of it looks up type metadata at run time.
extension WireDecoder {
    /// Checks that this value is a keyed container whose every entry's key and value lie within it,
    /// so the lookups below cannot meet a broken entry (a value's own content is checked when it is
    /// decoded).
    func checkEntries() throws {
        guard value.tag == .keyed else { throw mismatch(expected: "a keyed container") }
        var reader = WireReader(in: value.payload)
        while !reader.isAtEnd {
            do {
                _ = try reader.key(of: bytes)
                _ = try reader.value(of: bytes)
            } catch {
                throw error.decodingError(at: codingPath)
            }
        }
    }

    /// The value of the first entry keyed `name`: looked for in the entry after the one found last,
    /// then in that one, then from the start. Keys asked for in the order they were written are
    /// found at once.
    func entry(named name: String) -> WireValue? {
        let wanted = name.utf8Span
        func isKey(_ keyRange: Range<Int>) -> Bool {
            let key = bytes[keyRange]
            return Self.same(key.span, wanted.span)
        }
        let entries = value.payload
        let found = nextEntry < entries.upperBound ? firstEntry(from: nextEntry, to: nextEntry + 1, where: isKey) : nil
        guard let found = found
            ?? firstEntry(from: lastEntry, to: lastEntry + 1, where: isKey)
            ?? firstEntry(from: entries.lowerBound, to: entries.upperBound, where: isKey)
        else { return nil }
        lastEntry = found.start
        nextEntry = found.end
        return found.value
    }

    /// Whether `a` and `b` hold the same bytes.
    private static func same(_ a: Span<UInt8>, _ b: Span<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where a[index] != b[index] {
            return false
        }
        return true
    }

    /// The keys of the entries that are valid UTF-8, in order.
    func entryNames() -> [String] {
        var names: [String] = []
        _ = firstEntry(from: value.payload.lowerBound, to: value.payload.upperBound) { keyRange in
            if let name = WireScalarDecoding.validString(bytes[keyRange]) { names.append(name) }
            return false
        }
        return names
    }

    /// The first entry that starts in `start..<stop` and whose key's range satisfies `isKey`: where
    /// it starts and ends, and its value. The framing was checked by `checkEntries()`, and `start`
    /// is the start of an entry.
    private func firstEntry(
        from start: Int, to stop: Int, where isKey: (Range<Int>) -> Bool
    ) -> (start: Int, end: Int, value: WireValue)? {
        var reader = WireReader(in: start..<value.payload.upperBound)
        while reader.position < stop {
            let entryStart = reader.position
            guard let keyRange = try? reader.key(of: bytes), let value = try? reader.value(of: bytes) else { return nil }
            if isKey(keyRange) { return (entryStart, reader.position, value) }
        }
        return nil
    }
}
