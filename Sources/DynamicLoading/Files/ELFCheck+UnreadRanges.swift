import Glibc

extension ELFCheck {
    /// The byte ranges of the open file `descriptor` (`fileSize` bytes) that nothing reads of a copy:
    /// its debugging information and static symbol table (the sections `.debug_*`, `.zdebug_*`,
    /// `.symtab` and `.strtab`, which are never loaded), less every byte the loader or a check reads
    /// (the headers, every segment and the rest of its pages, the section headers and their names,
    /// every other section, whatever its type). Sorted, apart; empty if the file's headers cannot be read. A shadow copy leaves them as holes: a
    /// plugin built with debugging information copies a fraction of its bytes.
    package static func unreadRanges(_ descriptor: Int32, fileSize: Int) -> [Range<Int>] {
        let header = read(descriptor, offset: 0, count: headerSize)
        guard header.count == headerSize, let sections = Sections(descriptor, fileSize: fileSize, header: header) else { return [] }
        let segmentsOffset = integer(header, 32, UInt64.self)
        let segmentSize = Int(integer(header, 54, UInt16.self)), segmentCount = Int(integer(header, 56, UInt16.self))
        guard segmentSize >= programHeaderSize, segmentsOffset <= UInt64(fileSize),
              segmentCount <= (fileSize - Int(segmentsOffset)) / segmentSize else { return [] }
        let segments = read(descriptor, offset: Int(segmentsOffset), count: segmentSize * segmentCount)
        guard segments.count == segmentSize * segmentCount else { return [] }
        // Clamped to the file: a range past its end is none of the copy's business.
        let inFile = { (offset: UInt64, length: UInt64) -> Range<Int> in
            let start = Int(min(offset, UInt64(fileSize)))
            return start..<(start + Int(min(length, UInt64(fileSize - start))))
        }
        var needed: [Range<Int>] = [0..<headerSize, inFile(segmentsOffset, UInt64(segments.count)),
                                    inFile(sections.tableOffset, UInt64(sections.table.count))]
        // Each segment with the rest of its first and last pages, which the loader maps too (and may
        // read tables from, by address): pages of 64 KiB, the largest Linux has.
        let page = 1 << 16
        for index in 0..<segmentCount {
            let bytes = inFile(integer(segments, index * segmentSize + 8, UInt64.self), integer(segments, index * segmentSize + 32, UInt64.self))
            needed.append(bytes.lowerBound / page * page..<min(fileSize, (bytes.upperBound + page - 1) / page * page))
        }
        let allocated: UInt64 = 0x2, noBits: UInt32 = 8
        var unread: [Range<Int>] = []
        for index in 1..<sections.count {
            let base = index * sections.entrySize
            let range = inFile(integer(sections.table, base + 24, UInt64.self), integer(sections.table, base + 32, UInt64.self))
            // Never loaded, and named as nothing but debuggers read: by a prefix of the name, never a
            // scan to its end (a names table without a NUL, named by every section, is a hostile file's).
            let unneeded = integer(sections.table, base + 4, UInt32.self) != noBits
                && integer(sections.table, base + 8, UInt64.self) & allocated == 0 && index != sections.namesIndex
                && Self.unneededNames.contains { sections.name(of: index, startsWith: $0) }
            if unneeded { unread.append(range) } else { needed.append(range) }
        }
        return subtracting(needed, from: unread)
    }

    /// How the names of the sections a copy leaves out begin (with their NUL, a whole name).
    private static let unneededNames = [Array(".debug_".utf8), Array(".zdebug_".utf8), Array(".symtab\0".utf8), Array(".strtab\0".utf8)]

    /// The bytes of `ranges` that none of `removed` holds, as sorted ranges apart. One pass over both,
    /// sorted: a file may list tens of thousands of sections.
    static func subtracting(_ removed: [Range<Int>], from ranges: [Range<Int>]) -> [Range<Int>] {
        let cuts = merged(removed)
        var left: [Range<Int>] = [], next = 0
        for range in merged(ranges) {
            var start = range.lowerBound
            // The cuts that end before this range are behind every later range too.
            while next < cuts.count, cuts[next].upperBound <= start { next += 1 }
            var cut = next
            while cut < cuts.count, cuts[cut].lowerBound < range.upperBound {
                if cuts[cut].lowerBound > start { left.append(start..<cuts[cut].lowerBound) }
                start = max(start, cuts[cut].upperBound)
                cut += 1
            }
            if start < range.upperBound { left.append(start..<range.upperBound) }
        }
        return left
    }

    /// `ranges` sorted, those that overlap or touch made one, the empty ones left out.
    private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
