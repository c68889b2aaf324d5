import Foundation
import TestSupport
import Testing

/// The libraries are layers, each built only on those below it: the C target, the floor that reads
/// and maps files (DynamicLoading), HostKit, and `host`. Across targets the compiler refuses a use
/// upward already; this says which file names what, and holds for files moved between targets.
/// HostKit's folders are layers too, in the order of a load, which the compiler does not see at all.
@Suite struct LayerTests {
    /// The layers from the bottom up, each with its source folders.
    static let layers: [(name: String, folders: [String])] = [
        ("CDynamicLinker", ["Sources/CDynamicLinker"]),
        ("DynamicLoading", ["Sources/DynamicLoading"]),
        ("HostKit", ["Sources/HostKit"]),
        ("host", ["Sources/host"]),
    ]

    /// HostKit's folders from the bottom up, in the order a load crosses them: the reports and errors
    /// everything returns, the hooks' runner, discovery, the operator's settings (read as a load
    /// begins), opening, registration, the probe's parent side, the pipeline that runs a whole load,
    /// and the host that keeps what it staged.
    static let hostKitLayers: [(name: String, folders: [String])] =
        ["Reporting", "Hooks", "Discovery", "Settings", "Loading", "Registration", "Probe", "Pipeline", "OwnProcess", "Reload", "Lifecycle"].map {
            ($0, ["Sources/HostKit/" + $0])
        }

    @Test func noFileOfALowerLayerNamesATypeOfAHigherOne() throws {
        let (declared, uses) = try Self.upwardUses(in: Self.layers)
        #expect(declared[1].count > 10 && declared[2].count > 10, "types read: \(declared.map(\.count))")
        #expect(uses.isEmpty, "a lower layer uses a higher one:\n\(uses.joined(separator: "\n"))")
    }

    @Test func noFolderOfHostKitNamesATypeOfAHigherOne() throws {
        // Every folder of HostKit's sources is a layer: a new one is placed in the order, not left out.
        let base = repositoryRoot.appendingPathComponent("Sources/HostKit")
        let folders = try FileManager.default.contentsOfDirectory(atPath: base.path).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: base.appendingPathComponent(name).path, isDirectory: &isFolder)
                && isFolder.boolValue && !name.hasSuffix(".docc")
        }
        #expect(Set(folders) == Set(Self.hostKitLayers.map(\.name)), "HostKit's folders: \(folders.sorted())")
        let (declared, uses) = try Self.upwardUses(in: Self.hostKitLayers)
        #expect(declared.allSatisfy { !$0.isEmpty }, "types read: \(declared.map(\.count))")
        #expect(uses.isEmpty, "a lower folder of HostKit uses a higher one:\n\(uses.joined(separator: "\n"))")
    }

    /// The top-level types each of `layers` declares, and each use of a higher layer's type by a file
    /// of a lower one.
    static func upwardUses(in layers: [(name: String, folders: [String])]) throws -> (declared: [Set<String>], uses: [String]) {
        let sources = try layers.map { layer in
            try layer.folders.flatMap { try sourceFiles(in: $0) }
        }
        let declared = sources.map { files in Set(files.flatMap { topLevelTypes(in: $0.text) }) }
        var uses: [String] = []
        for (index, files) in sources.enumerated() {
            // A name a layer declares itself, or one below it does, is its own (a nested `Refusal`, say).
            let own = declared[...index].reduce(Set<String>()) { $0.union($1) }
            for file in files {
                let names = identifiers(in: code(of: file.text))
                for higher in (index + 1)..<layers.count {
                    for name in names.intersection(declared[higher]).subtracting(own).sorted() {
                        uses.append("\(file.path) (\(layers[index].name)) names \(name), a type of \(layers[higher].name)")
                    }
                }
            }
        }
        return (declared, uses)
    }

    /// The Swift, C and header files under `folder`, by their path from the repository's root.
    static func sourceFiles(in folder: String) throws -> [(path: String, text: String)] {
        let base = repositoryRoot.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        let sources = files.filter { file in [".swift", ".c", ".h"].contains { file.hasSuffix($0) } }.sorted()
        return try sources.map { (folder + "/" + $0, try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The names of the types declared at a file's top level (column 0: not nested).
    static func topLevelTypes(in text: String) -> [String] {
        // Most lines are indented or closing braces: only the others are matched.
        text.split(separator: "\n").filter { $0.first.map { !$0.isWhitespace && $0 != "}" && $0 != "/" } ?? false }.compactMap { line in
            line.firstMatch(of: #/^(?:@\S+\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|open|distributed)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)/#)
                .map { String($0.1) }
        }
    }

    /// `text` without its comments and string literals: what the compiler reads as names. Read byte by
    /// byte (regular expressions took seconds for the sources).
    static func code(of text: String) -> String {
        let bytes = Array(text.utf8)
        var kept: [UInt8] = []
        var index = 0
        func at(_ offset: Int, _ string: String) -> Bool { bytes[(index + offset)...].starts(with: string.utf8) }
        let special: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "\""), UInt8(ascii: "#")]
        while index < bytes.count {
            if !special.contains(bytes[index]) {
                kept.append(bytes[index])
                index += 1
            } else if at(0, "//") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if at(0, "/*") {
                index += 2
                while index < bytes.count, !at(0, "*/") { index += 1 }
                index += 2
            } else if at(0, "\"") || at(0, "#\"") {
                // A string: `#`s before it close it after its quote(s); a `\` escapes the next byte.
                let hashes = bytes[index...].prefix { $0 == UInt8(ascii: "#") }.count
                index += hashes
                let quote = at(0, "\"\"\"") ? "\"\"\"" : "\""
                index += quote.utf8.count
                let close = quote + String(repeating: "#", count: hashes)
                while index < bytes.count, !at(0, close) { index += hashes == 0 && bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                index += close.utf8.count
                kept += Array("\"\"".utf8)
            } else {
                kept.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// The capitalized identifiers in `code`: the names of types it may use.
    static func identifiers(in code: String) -> Set<String> {
        let words = code.utf8.split { !($0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                                        || (0x61...0x7A).contains($0) || $0 >= 0x80) }
        return Set(words.filter { (0x41...0x5A).contains($0.first ?? 0) }.map { String(decoding: $0, as: UTF8.self) })
    }
}
