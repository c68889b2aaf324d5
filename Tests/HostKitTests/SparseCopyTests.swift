import Foundation
@testable import DynamicLoading
import Glibc
import TestSupport
import Testing

/// A shadow copy leaves out what nothing reads of it once its folder is gone (debugging information,
/// the static symbol table), never a byte the loader or a check reads; with an operator's file
/// check it holds every byte (`ELFCheck.unreadRanges`, `ShadowFolder.copiesWhole`).
@Suite struct SparseCopyTests {
    /// A plugin built for real, with debugging information (the fixtures are debug builds).
    static let plugin = BuiltPlugins.path("FixtureVersionThree")

    @Test func aCopyLeavesOutTheDebuggingInformationAndKeepsEveryOtherByte() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.plugin))
        let skipped = try Self.unreadRanges(of: Self.plugin)
        let left = skipped.reduce(0) { $0 + $1.count }
        // Most of a debug build's file: its DWARF sections and static symbols.
        #expect(left > original.count / 3, "\(left) of \(original.count) bytes left out")
        for range in try Self.layout(of: original).read {
            #expect(!skipped.contains { $0.overlaps(range) }, "a range read (\(range)) is left out")
        }

        let parent = try TemporaryFolder()
        let folder = try ShadowFolder.make(in: parent.path, copiesWhole: false).get()
        defer { folder.remove() }
        let copy = try folder.copy(Self.plugin, as: Self.plugin).image
        let copied = try Data(contentsOf: URL(fileURLWithPath: copy))
        #expect(copied.count == original.count)
        var expected = original
        for range in skipped { expected.replaceSubrange(range, with: Data(count: range.count)) }
        #expect(copied == expected, "the copy differs from the file outside the ranges left out")
        // The ranges left out take no room (holes), whatever the file system's block size.
        var status = stat()
        #expect(stat(copy, &status) == 0)
        #expect(Int(status.st_blocks) * 512 < original.count - left + 64 * 1024, "\(status.st_blocks) blocks")
    }

    @Test func aFolderThatCopiesWholeCopiesEveryByte() throws {
        let parent = try TemporaryFolder()
        let folder = try ShadowFolder.make(in: parent.path, copiesWhole: true).get()
        defer { folder.remove() }
        let copy = try folder.copy(Self.plugin, as: Self.plugin).image
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: Self.plugin)))
    }

    /// A file whose section headers say a debugging section or the static symbols lie where the
    /// headers, a segment or the section names are: those bytes are copied all the same.
    @Test(arguments: [".debug_info", ".symtab", ".strtab"])
    func aSectionThatClaimsBytesTheLoaderReadsDoesNotGetThemLeftOut(_ name: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.plugin))
        let layout = try Self.layout(of: bytes)
        let index = try #require(layout.sections.firstIndex { $0.name == name }, "no \(name) in the fixture")
        // From the ELF header to the end of the file: over the headers, every segment, the section names.
        let entry = layout.sectionTable + index * 64
        bytes.replaceSubrange(entry + 24..<entry + 40, with: Self.little(UInt64(0)) + Self.little(UInt64(bytes.count)))
        let folder = try TemporaryFolder()
        let file = folder.path + "/libclaims.so"
        try bytes.write(to: URL(fileURLWithPath: file))
        let skipped = try Self.unreadRanges(of: file)
        for range in layout.read {
            #expect(!skipped.contains { $0.overlaps(range) }, "\(name) got \(range) left out: \(skipped)")
        }
    }

    /// A section a check reads by name (`.comment`) is copied even if its type says it holds no bytes
    /// (`SHT_NOBITS`) and the static symbols claim the same bytes.
    @Test func aSectionTypedAsHoldingNoBytesIsCopiedAllTheSame() throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.plugin))
        let layout = try Self.layout(of: bytes)
        let comment = try #require(layout.sections.firstIndex { $0.name == ".comment" })
        let strings = try #require(layout.sections.firstIndex { $0.name == ".strtab" })
        let range = layout.sections[comment].range
        bytes.replaceSubrange(layout.sectionTable + comment * 64 + 4..<layout.sectionTable + comment * 64 + 8,
                              with: withUnsafeBytes(of: UInt32(8).littleEndian) { Data($0) })
        bytes.replaceSubrange(layout.sectionTable + strings * 64 + 24..<layout.sectionTable + strings * 64 + 40,
                              with: Self.little(UInt64(range.lowerBound)) + Self.little(UInt64(range.count)))
        let folder = try TemporaryFolder()
        let file = folder.path + "/libnobits.so"
        try bytes.write(to: URL(fileURLWithPath: file))
        let skipped = try Self.unreadRanges(of: file)
        #expect(!skipped.contains { $0.overlaps(range) }, "the .comment bytes \(range) are left out: \(skipped)")
    }

    /// Ranges less ranges, against a model of their bytes, on random ranges that overlap, touch,
    /// nest and lie apart.
    @Test func rangesLessRangesAreTheBytesLeft() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let make = { (random: inout SystemRandomNumberGenerator) -> [Range<Int>] in
                (0..<Int.random(in: 0...5, using: &random)).map { _ in
                    let start = Int.random(in: 0...60, using: &random)
                    return start..<(start + Int.random(in: 0...20, using: &random))
                }
            }
            let ranges = make(&random), removed = make(&random)
            let left = ELFCheck.subtracting(removed, from: ranges)
            let model = Set(ranges.flatMap { Array($0) }).subtracting(removed.flatMap { Array($0) })
            #expect(Set(left.flatMap { Array($0) }) == model, "\(ranges) less \(removed): \(left)")
            #expect(zip(left, left.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound }, "not sorted apart: \(left)")
            #expect(left.allSatisfy { !$0.isEmpty })
        }
    }

    /// As many sections as a file can list (65,535), unneeded ones between needed ones: one pass, not
    /// one per pair (which would hold a load for minutes).
    @Test func tensOfThousandsOfSectionsAreSubtractedInOnePass() {
        let unread = (0..<32_767).map { $0 * 10..<$0 * 10 + 5 }, read = (0..<32_767).map { $0 * 10 + 5..<$0 * 10 + 10 }
        #expect(ELFCheck.subtracting(read, from: unread) == unread)
        #expect(ELFCheck.subtracting(unread, from: read) == read)
        let spanning = ELFCheck.subtracting(read.map { $0.lowerBound + 1..<$0.upperBound - 1 }, from: [0..<327_670])
        #expect(spanning.count == 32_768 && spanning.first == 0..<6 && spanning.last == 327_669..<327_670)
    }

    // MARK: Reading the fixture, apart from the code under test

    static func unreadRanges(of path: String) throws -> [Range<Int>] {
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var status = stat()
        try #require(fstat(descriptor, &status) == 0)
        return ELFCheck.unreadRanges(descriptor, fileSize: Int(status.st_size))
    }

    /// The section headers' names and offset, and the byte ranges the loader reads or a check reads
    /// by name (the ELF header, the program headers, every segment, the section headers, the section
    /// names, `.comment`, `.dynsym`, `.dynstr`).
    static func layout(of bytes: Data) throws -> (sections: [(name: String, range: Range<Int>)], sectionTable: Int, read: [Range<Int>]) {
        let field = { (offset: Int, size: Int) -> Int in
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        let (segments, segmentCount) = (field(32, 8), field(56, 2))
        let (sectionTable, sectionCount, namesIndex) = (field(40, 8), field(60, 2), field(62, 2))
        var read = [0..<64, segments..<segments + 56 * segmentCount, sectionTable..<sectionTable + 64 * sectionCount]
        for index in 0..<segmentCount {
            let offset = field(segments + index * 56 + 8, 8)
            read.append(offset..<offset + field(segments + index * 56 + 32, 8))
        }
        let ranges = (0..<sectionCount).map { index in
            field(sectionTable + index * 64 + 24, 8)..<field(sectionTable + index * 64 + 24, 8) + field(sectionTable + index * 64 + 32, 8)
        }
        let names = ranges[namesIndex]
        let sections = (0..<sectionCount).map { index in
            let start = names.lowerBound + field(sectionTable + index * 64, 4)
            let end = bytes[start...].firstIndex(of: 0) ?? start
            return (name: String(decoding: bytes[start..<end], as: UTF8.self), range: ranges[index])
        }
        read.append(names)
        read += sections.filter { [".comment", ".dynsym", ".dynstr"].contains($0.name) }.map(\.range)
        try #require(sections.contains { $0.name == ".debug_info" }, "the fixture has no debugging information")
        return (sections, sectionTable, read.filter { !$0.isEmpty })
    }

    static func little(_ value: UInt64) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }
}
