import Foundation
@testable import DynamicLoading
import Glibc
import TestSupport
import Testing

/// What a hostile file's tables cost the host to read is bounded by the file's size, not by the
/// product of two of its counts: names read by prefix, a name's and a table's bytes capped
/// (`ELFCheck`, `ELFCheck.unreadRanges`). Each file is a real plugin's, changed where it says.
@Suite struct ELFBoundsTests {
    static let plugin = BuiltPlugins.path("FixtureVersionThree")

    /// 65,535 sections, each named by the start of a 1 MiB names table without a NUL: read by a
    /// prefix of each name, not a scan of the table per section (hours at -Onone).
    @Test(.timeLimit(.minutes(1))) func sectionsNamedByATableWithoutAnEndAreReadByPrefix() throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.plugin))
        let names = bytes.count, table = names + (1 << 20), count = 65_535
        bytes.append(Data(repeating: UInt8(ascii: "A"), count: 1 << 20))
        var headers = Data(count: 64 * count)
        for index in 1..<count {
            let entry = index * 64
            Self.put(UInt32(0), at: entry, in: &headers)                    // sh_name: the table's start
            Self.put(UInt32(1), at: entry + 4, in: &headers)                // SHT_PROGBITS, not allocated
            Self.put(UInt64(index == 1 ? names : 0), at: entry + 24, in: &headers)
            Self.put(UInt64(index == 1 ? 1 << 20 : 16), at: entry + 32, in: &headers)
        }
        bytes.append(headers)
        Self.put(UInt64(table), at: 40, in: &bytes)                          // e_shoff
        Self.put(UInt16(count), at: 60, in: &bytes)                          // e_shnum
        Self.put(UInt16(1), at: 62, in: &bytes)                              // e_shstrndx
        let file = try TemporaryFolder()
        let path = try Self.write(bytes, in: file)
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        // Nothing is named as a copy may leave out: every byte is copied.
        #expect(ELFCheck.unreadRanges(descriptor, fileSize: bytes.count).isEmpty)
        // Found by name, by prefix too: no `.comment`, no symbols, read at once.
        let reading = try ELFCheck.read(path)
        #expect(reading.comment == [] && reading.symbols == nil)
    }

    /// A library name in the dynamic section longer than a path may be (4,096 bytes) is a damaged
    /// section, not a string of the string table's size (65,536 of them were 64 GiB).
    @Test func aLinkedLibraryNameLongerThanAPathIsRefused() throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.plugin))
        let (strings, neededEntry) = try Self.dynamicStrings(of: bytes)
        // The first library named from the table's second byte, and no NUL in the table.
        Self.put(UInt64(1), at: neededEntry + 8, in: &bytes)
        bytes.replaceSubrange(strings, with: Data(repeating: UInt8(ascii: "a"), count: strings.count))
        try #require(strings.count > 4097, "the fixture's string table is \(strings.count) bytes")
        let file = try TemporaryFolder()
        let path = try Self.write(bytes, in: file)
        #expect(throws: ELFCheck.Refusal.self) { try ELFCheck.validate(path) }
        // The file as built passes.
        #expect(throws: Never.self) { try ELFCheck.validate(Self.plugin) }
    }

    /// Symbols whose names all run to the end of a names table without a NUL: read up to a budget of
    /// bytes, then the table counts as unreadable (and a file without readable symbols is never opened).
    @Test func symbolNamesPastTheBudgetMakeTheTableUnreadable() throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.plugin))
        let names = try #require(SparseCopyTests.layout(of: bytes).sections.first { $0.name == ".dynstr" }).range
        bytes.replaceSubrange(names, with: Data(repeating: UInt8(ascii: "s"), count: names.count))
        let file = try TemporaryFolder()
        let path = try Self.write(bytes, in: file)
        #expect(ELFCheck.dynamicSymbols(path, nameBudget: 1 << 18) == nil)
        // The file as built reads within that budget, and names its entry.
        let symbols = try #require(ELFCheck.dynamicSymbols(Self.plugin, nameBudget: 1 << 18))
        #expect(EntrySymbol(symbols) == .function)
    }

    // MARK: Changing a file

    static func write(_ bytes: Data, in folder: TemporaryFolder) throws -> String {
        let path = folder.path + "/libhostile.so"
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: $0) }
    }

    /// The bytes of the dynamic string table (found by its address, in the first segment), and the
    /// file offset of the dynamic section's first entry naming a linked library.
    static func dynamicStrings(of bytes: Data) throws -> (table: Range<Int>, neededEntry: Int) {
        let field = { (offset: Int, size: Int) -> Int in (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) } }
        let (segments, count) = (field(32, 8), field(56, 2))
        var dynamic: Range<Int>?, load: (offset: Int, address: Int)?
        for index in 0..<count {
            let entry = segments + index * 56
            if field(entry, 4) == 2 { dynamic = field(entry + 8, 8)..<field(entry + 8, 8) + field(entry + 32, 8) }
            if field(entry, 4) == 1, load == nil { load = (field(entry + 8, 8), field(entry + 16, 8)) }
        }
        let (section, first) = (try #require(dynamic), try #require(load))
        var strings: Int?, length: Int?, needed: Int?
        for entry in stride(from: section.lowerBound, to: section.upperBound, by: 16) {
            switch field(entry, 8) {
            case 1 where needed == nil: needed = entry
            case 5: strings = field(entry + 8, 8) - first.address + first.offset
            case 10: length = field(entry + 8, 8)
            default: break
            }
        }
        let (start, size) = (try #require(strings), try #require(length))
        return (start..<start + size, try #require(needed))
    }
}
