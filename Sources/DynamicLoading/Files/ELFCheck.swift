import Glibc

/// Reads a file's ELF headers before `dlopen` sees it.
///
/// The dynamic loader trusts the headers: a truncated library whose segments reach past the end of
/// the file is mapped anyway and kills the process with SIGBUS when touched. So the segments are
/// checked against the file size here, and a file that is not a shared library for this machine is
/// refused with a precise reason.
package enum ELFCheck {
    private static let elfMagic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]
    private static let typeSharedObject: UInt16 = 3
    private static let segmentLoad: UInt32 = 1
    private static let segmentDynamic: UInt32 = 2
    private static let segmentStack: UInt32 = 0x6474_E551, flagExecute: UInt32 = 1
    private static let tagNeeded: UInt64 = 1, tagStrtab: UInt64 = 5, tagStrsz: UInt64 = 10, tagSoname: UInt64 = 14
    private static let tagRpath: UInt64 = 15, tagRunpath: UInt64 = 29
    private static let tagFlags1: UInt64 = 0x6FFF_FFFB, flagNoDefaultLibraries: UInt64 = 0x800
    private static let tagAuxiliary: UInt64 = 0x7FFF_FFFD, tagFilter: UInt64 = 0x7FFF_FFFF
    static let headerSize = 64
    static let programHeaderSize = 56
    private static let sectionHeaderSize = 64

    #if arch(x86_64)
    private static let machine: UInt16 = 62
    #elseif arch(arm64)
    private static let machine: UInt16 = 183
    #else
    private static let machine: UInt16 = 0
    #endif

    /// What the dynamic linker reads of a library's dynamic section to find the libraries it links.
    package struct DynamicSection: Hashable, Sendable, Codable {
        /// The `DT_NEEDED` names, in order.
        package var needed: [String] = []
        /// The `DT_RPATH` folders (searched only when there is no `DT_RUNPATH`), `$ORIGIN` unexpanded.
        package var rpath: [String] = []
        /// The `DT_RUNPATH` folders, `$ORIGIN` unexpanded; `nil` if the library has none.
        package var runpath: [String]?
        /// The `DT_SONAME`, if any.
        var soname: String?
        /// The `DT_AUXILIARY` and `DT_FILTER` names: libraries the loader maps as filters of this one.
        var filters: [String] = []
        /// `DF_1_NODEFLIB` in `DT_FLAGS_1`: the loader's cache and default folders are not searched.
        var noDefaultLibraries = false
    }

    /// What one reading of a file that may be loaded says: its dynamic section, the strings of its
    /// `.comment` section (`nil` if its sections cannot be read, `[]` if it has none), and its dynamic
    /// symbols (`nil` if they cannot be read).
    package struct Reading {
        package let dynamic: DynamicSection
        package let comment: [String]?
        package let symbols: DynamicSymbols?
    }

    /// This process's executable (`/proc/self/exe`), read once: its toolchain is what plugins are
    /// compared with, and the libraries it links are loaded by their names. `nil` if it cannot be read.
    package static let hostExecutable: Reading? = try? read("/proc/self/exe", symbols: false)

    /// Why the file at `path` cannot be a loadable shared library here.
    package struct Refusal: Error {
        package let path: String
        package let reason: String
    }

    /// Throws why `path` cannot be a loadable shared library here; if it may be, returns the parts of
    /// its dynamic section that say which libraries it links and where they are looked for.
    @discardableResult
    package static func validate(_ path: String) throws(Refusal) -> DynamicSection {
        try read(path, comment: false).dynamic
    }

    /// ``validate(_:)``, the `.comment` strings and (unless `symbols` is false) the dynamic symbols,
    /// from one opening of the file: what discovery needs of a plugin file before `dlopen` (the
    /// compiler check reads the comment, and the symbols say whether it defines an entry to call).
    package static func read(_ path: String, comment: Bool = true, symbols: Bool = true) throws(Refusal) -> Reading {
        let descriptor: Int32
        do {
            // Not blocking: a pipe put at the path would hold the open (it is refused as no regular file).
            descriptor = try Posix.open(path, O_RDONLY | O_NONBLOCK)
        } catch {
            throw Refusal(path: path, reason: "cannot open: \(error.reason)")
        }
        defer { Posix.close(descriptor) }
        return try read(descriptor, path: path, comment: comment, symbols: symbols)
    }

    /// ``read(_:comment:symbols:)`` of the file open as `descriptor` (named `path` in errors).
    package static func read(_ descriptor: Int32, path: String, comment: Bool = true,
                     symbols: Bool = true) throws(Refusal) -> Reading {
        let fail = { (reason: String) in Refusal(path: path, reason: reason) }
        let status: stat
        do {
            status = try Posix.fstat(descriptor)
        } catch {
            throw fail("cannot stat: \(error.reason)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw fail("not a regular file") }
        let size = Int(status.st_size)
        guard size >= headerSize else { throw fail("file too short (\(size) bytes) for an ELF header") }
        let header = read(descriptor, offset: 0, count: headerSize)
        guard header.count == headerSize, Array(header[0..<4]) == elfMagic else { throw fail("not an ELF file") }
        guard header[4] == 2, header[5] == 1 else { throw fail("not a 64-bit little-endian ELF file") }
        guard integer(header, 16, UInt16.self) == typeSharedObject else { throw fail("not a shared object (ELF type \(integer(header, 16, UInt16.self)))") }
        let fileMachine = integer(header, 18, UInt16.self)
        guard machine == 0 || fileMachine == machine else { throw fail("built for another machine (ELF machine \(fileMachine))") }
        // Compared as the file's 64-bit number first: an offset past Int.max must be an error, not a trap.
        let rawTableOffset = integer(header, 32, UInt64.self)
        let entrySize = Int(integer(header, 54, UInt16.self))
        let count = Int(integer(header, 56, UInt16.self))
        guard entrySize >= programHeaderSize, count > 0, rawTableOffset <= UInt64(size),
              count <= (size - Int(rawTableOffset)) / entrySize
        else { throw fail("truncated or damaged: program headers lie outside the file") }
        let tableOffset = Int(rawTableOffset)
        let table = read(descriptor, offset: tableOffset, count: entrySize * count)
        guard table.count == entrySize * count else { throw fail("truncated: cannot read the program headers") }
        var loads: [(address: UInt64, offset: UInt64, length: UInt64)] = []
        var dynamic: (address: UInt64, length: UInt64)?
        for index in 0..<count {
            let base = index * entrySize
            switch integer(table, base, UInt32.self) {
            case segmentLoad:
                loads.append((integer(table, base + 16, UInt64.self), integer(table, base + 8, UInt64.self),
                              integer(table, base + 32, UInt64.self)))
            case segmentDynamic:
                // Its address, not its file offset: the loader reads the dynamic section where the
                // loadable segments map it, and a file may point its offset at something else.
                dynamic = (integer(table, base + 16, UInt64.self), integer(table, base + 32, UInt64.self))
            case segmentStack where integer(table, base + 4, UInt32.self) & flagExecute != 0:
                // glibc would make the stack of every thread of the process executable for it.
                throw fail("it asks for an executable stack (PT_GNU_STACK with PF_X), which would make every "
                           + "thread's stack in the host executable")
            default: break
            }
        }
        for index in 0..<count {
            let base = index * entrySize
            guard integer(table, base, UInt32.self) == segmentLoad else { continue }
            let offset = integer(table, base + 8, UInt64.self)
            let length = integer(table, base + 32, UInt64.self)
            let (end, overflow) = offset.addingReportingOverflow(length)
            guard !overflow, end <= UInt64(size) else {
                throw fail("truncated: a segment ends at byte \(end) but the file has \(size) bytes")
            }
        }
        // The loader needs no section headers, but a file whose headers say they lie past its end was
        // cut short or damaged: said so here, not taken for a library that names no compiler.
        let sectionsOffset = integer(header, 40, UInt64.self)
        let sectionSize = UInt64(integer(header, 58, UInt16.self))
        let sections = max(UInt64(integer(header, 60, UInt16.self)), 1)
        if sectionsOffset != 0 {
            let (end, overflow) = sectionsOffset.addingReportingOverflow(sectionSize * sections)
            guard sectionSize >= UInt64(sectionHeaderSize), !overflow, end <= UInt64(size) else {
                throw fail("truncated or damaged: its section headers end at byte \(end) but the file has \(size) bytes")
            }
        }
        let found = comment ? Sections(descriptor, fileSize: size, header: header) : nil
        let strings = found.flatMap(commentStrings)
        let symbolTable = symbols ? found.flatMap { dynamicSymbols($0) } : nil
        guard let dynamic else { return Reading(dynamic: DynamicSection(), comment: strings, symbols: symbolTable) }
        guard let section = dynamicSection(descriptor, at: dynamic, fileSize: size, loads: loads) else {
            throw fail("damaged: its dynamic section, or the strings it names, lie outside the file")
        }
        return Reading(dynamic: section, comment: strings, symbols: symbolTable)
    }

    /// The dynamic section at `dynamic` (file offset and size), its strings found through the
    /// loadable segments (`DT_STRTAB` is an address); `nil` if any of it lies outside the file.
    private static func dynamicSection(_ descriptor: Int32, at dynamic: (address: UInt64, length: UInt64), fileSize: Int,
                                       loads: [(address: UInt64, offset: UInt64, length: UInt64)]) -> DynamicSection? {
        let entrySize: UInt64 = 16
        guard dynamic.length <= 1 << 20, let offset = fileOffset(of: dynamic.address, length: dynamic.length, in: loads),
              offset <= UInt64(fileSize), dynamic.length <= UInt64(fileSize) - offset else { return nil }
        let bytes = read(descriptor, offset: Int(offset), count: Int(dynamic.length / entrySize * entrySize))
        var names: [(tag: UInt64, offset: UInt64)] = []
        var stringsAddress: UInt64?, stringsLength: UInt64?, noDefaultLibraries = false
        for entry in stride(from: 0, to: bytes.count, by: Int(entrySize)) {
            let tag = integer(bytes, entry, UInt64.self), value = integer(bytes, entry + 8, UInt64.self)
            if tag == 0 { break }  // DT_NULL ends the section
            switch tag {
            case tagNeeded, tagSoname, tagRpath, tagRunpath, tagAuxiliary, tagFilter: names.append((tag, value))
            case tagFlags1: noDefaultLibraries = value & flagNoDefaultLibraries != 0
            case tagStrtab: stringsAddress = value
            case tagStrsz: stringsLength = value
            default: break
            }
        }
        guard !names.isEmpty else { return DynamicSection(noDefaultLibraries: noDefaultLibraries) }
        // Bounded as the loader is not: a hostile section of 65,536 names, each the whole of a 1 MiB
        // table without a NUL, would make 64 GiB of strings here. (A path is at most 4,096 bytes.)
        guard names.count <= 4096 else { return nil }
        // The string table's file offset: the segment that maps its address.
        guard let stringsAddress, let stringsLength else { return nil }
        let strings = (address: stringsAddress, length: stringsLength)
        guard strings.length <= 1 << 20, let offset = fileOffset(of: strings.address, length: strings.length, in: loads),
              offset <= UInt64(fileSize), strings.length <= UInt64(fileSize) - offset else { return nil }
        let table = read(descriptor, offset: Int(offset), count: Int(strings.length))
        guard table.count == Int(strings.length) else { return nil }
        var section = DynamicSection(noDefaultLibraries: noDefaultLibraries)
        for (tag, start) in names {
            guard start < strings.length else { return nil }
            let bytes = table[Int(start)...].prefix(4097).prefix { $0 != 0 }
            guard bytes.count <= 4096 else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            switch tag {
            case tagNeeded: section.needed.append(text)
            case tagSoname: section.soname = text
            case tagAuxiliary, tagFilter: section.filters.append(text)
            // An empty folder in a run path is the current folder to the loader: kept.
            case tagRpath: section.rpath += text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            default:
                section.runpath = (section.runpath ?? []) + text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            }
        }
        return section
    }

    /// Where in the file the `length` bytes at `address` lie, by the loadable segment that maps them
    /// (its bytes from the file: `length` is the part of the segment the file holds); `nil` if none does.
    private static func fileOffset(of address: UInt64, length: UInt64,
                                   in loads: [(address: UInt64, offset: UInt64, length: UInt64)]) -> UInt64? {
        guard let segment = loads.first(where: { address >= $0.address && address - $0.address < $0.length }),
              length <= segment.length - (address - segment.address) else { return nil }
        return segment.offset + (address - segment.address)
    }

    /// The names in an ELF file's dynamic symbol table (`.dynsym`) that the file defines, and those
    /// it needs another object to define (undefined and not weak: the loader fails without them).
    package struct DynamicSymbols: Sendable {
        package var defined: Set<String> = []
        package var needed: Set<String> = []
        /// Of `defined`, the functions (`STT_FUNC`).
        package var functions: Set<String> = []
        /// Of `defined`, the indirect functions (`STT_GNU_IFUNC`): looking one up runs its resolver,
        /// code of the file's.
        var indirectFunctions: Set<String> = []
    }

    /// The dynamic symbols of the ELF file at `path`, read from the file (nothing of it runs); `nil`
    /// if the file, its sections or the tables cannot be read.
    /// (`nameBudget`: the bytes of names read at most, past which the table counts as unreadable.)
    package static func dynamicSymbols(_ path: String, nameBudget: Int = defaultNameBudget) -> DynamicSymbols? {
        guard let descriptor = try? Posix.open(path, O_RDONLY) else { return nil }
        defer { Posix.close(descriptor) }
        guard let size = try? Posix.fstat(descriptor).st_size else { return nil }
        let header = read(descriptor, offset: 0, count: headerSize)
        guard header.count == headerSize, let sections = Sections(descriptor, fileSize: Int(size), header: header) else { return nil }
        return dynamicSymbols(sections, nameBudget: nameBudget)
    }

    /// The dynamic symbols in `sections`; `nil` if the tables cannot be read.
    private static func dynamicSymbols(_ sections: Sections, nameBudget: Int = defaultNameBudget) -> DynamicSymbols? {
        guard let symbolsIndex = sections.index(named: ".dynsym"), let namesIndex = sections.index(named: ".dynstr"),
              let table = sections.contents(symbolsIndex, limit: 1 << 26), let names = sections.contents(namesIndex, limit: 1 << 26)
        else { return nil }
        // Elf64_Sym: st_name (4 bytes), st_info (1: binding << 4 | type), st_other (1), st_shndx (2),
        // st_value (8), st_size (8).
        let entrySize = 24, undefinedSection: UInt16 = 0, weakBinding: UInt8 = 2
        let functionType: UInt8 = 2, indirectFunctionType: UInt8 = 10
        var symbols = DynamicSymbols()
        // The bytes of names read, bounded: a hostile table of symbols each named by the whole of a
        // names table without a NUL would make strings of the table's size times their number.
        var budget = nameBudget
        for entry in stride(from: entrySize, to: table.count - entrySize + 1, by: entrySize) {
            let offset = Int(integer(table, entry, UInt32.self))
            guard offset > 0, offset < names.count else { continue }
            let bytes = names[offset...].prefix(budget + 1).prefix { $0 != 0 }
            budget -= bytes.count
            guard budget >= 0 else { return nil }
            let name = String(decoding: bytes, as: UTF8.self)
            let info = table[entry + 4]
            if integer(table, entry + 6, UInt16.self) != undefinedSection {
                symbols.defined.insert(name)
                if info & 0xF == functionType { symbols.functions.insert(name) }
                if info & 0xF == indirectFunctionType { symbols.indirectFunctions.insert(name) }
            } else if info >> 4 != weakBinding {
                symbols.needed.insert(name)
            }
        }
        return symbols
    }

    /// The bytes of symbol names a reading of one table makes strings of, at most (128 MiB).
    package static let defaultNameBudget = 1 << 27

    /// The strings of the `.comment` section in `sections`: `nil` if it cannot be read, `[]` if
    /// there is none.
    private static func commentStrings(_ sections: Sections) -> [String]? {
        guard let index = sections.index(named: ".comment") else { return [] }
        return sections.contents(index, limit: 1 << 16).map { $0.split(separator: 0).map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The section headers of an ELF file, each offset and size checked against the file before it is
    /// read: the file may lie.
    struct Sections {
        let descriptor: Int32
        let fileSize: Int
        let table: [UInt8]
        let tableOffset: UInt64
        let entrySize: Int
        let count: Int
        /// The section that holds the section names, and its bytes, read once the table is known.
        let namesIndex: Int
        var names: [UInt8] = []

        /// The section headers of the open file whose ELF header is `header`; `nil` if they, or the
        /// names' table, do not lie in the file.
        init?(_ descriptor: Int32, fileSize: Int, header: [UInt8]) {
            let tableOffset = integer(header, 40, UInt64.self)
            let entrySize = Int(integer(header, 58, UInt16.self))
            let count = Int(integer(header, 60, UInt16.self))
            let namesIndex = Int(integer(header, 62, UInt16.self))
            guard entrySize >= sectionHeaderSize, count > 0, namesIndex < count, tableOffset <= UInt64(fileSize),
                  count <= (fileSize - Int(tableOffset)) / entrySize
            else { return nil }
            let table = read(descriptor, offset: Int(tableOffset), count: entrySize * count)
            guard table.count == entrySize * count else { return nil }
            self.descriptor = descriptor
            self.fileSize = fileSize
            self.table = table
            self.tableOffset = tableOffset
            self.namesIndex = namesIndex
            self.entrySize = entrySize
            self.count = count
            guard let names = contents(namesIndex, limit: 1 << 20) else { return nil }
            self.names = names
        }

        /// The bytes of section `index`, if it exists, lies in the file and is not larger than `limit`.
        func contents(_ index: Int, limit: Int) -> [UInt8]? {
            guard index > 0, index < count else { return nil }
            let base = index * entrySize
            let offset = integer(table, base + 24, UInt64.self), length = integer(table, base + 32, UInt64.self)
            guard length <= UInt64(limit), offset <= UInt64(fileSize), length <= UInt64(fileSize) - offset else { return nil }
            let bytes = read(descriptor, offset: Int(offset), count: Int(length))
            return bytes.count == Int(length) ? bytes : nil
        }

        /// Whether the name of section `index` begins with `prefix` (read no further than it).
        func name(of index: Int, startsWith prefix: [UInt8]) -> Bool {
            let offset = Int(integer(table, index * entrySize, UInt32.self))
            return offset < names.count && names[offset...].starts(with: prefix)
        }

        /// The first section called `name`.
        func index(named name: String) -> Int? {
            let wanted = Array(name.utf8) + [0]
            return (0..<count).first { index in
                let offset = Int(integer(table, index * entrySize, UInt32.self))
                return offset < names.count && names[offset...].starts(with: wanted)
            }
        }
    }

    /// The `count` bytes at `offset`, or none if the file has fewer there or cannot be read.
    static func read(_ descriptor: Int32, offset: Int, count: Int) -> [UInt8] {
        guard let bytes = try? Posix.pread(descriptor, offset: offset, count: count), bytes.count == count else { return [] }
        return bytes
    }

    /// The little-endian `T` at `offset` of `bytes`; every caller checked first that `bytes` holds it
    /// (a table is read whole or not at all, and its entries are at least as long as the fields read).
    static func integer<T: FixedWidthInteger>(_ bytes: [UInt8], _ offset: Int, _ type: T.Type) -> T {
        bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}
