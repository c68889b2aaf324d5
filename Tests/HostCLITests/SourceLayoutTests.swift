import Foundation
import TestSupport
import Testing

/// PluginAPI, PluginActors, DynamicLoading, HostKit, ProcessSignals, `host` and `abi-gate` stay readable
/// file by file: a file holds one concept, named after it, and at most three top-level types (a concept
/// and the small private types only it uses); no source file is longer than 400 lines.
@Suite struct SourceLayoutTests {
    /// The targets whose files are held to one concept each.
    static let folders = ["Sources/PluginAPI", "Sources/PluginActors", "Sources/DynamicLoading", "Sources/HostKit",
                          "Sources/ProcessSignals", "Sources/host", "Sources/abi-gate"]

    /// The longest a source file may be.
    static let longest = 400

    @Test func noSourceFileHoldsMoreThanThreeTopLevelTypes() throws {
        // A declaration at column 0, with or without modifiers and attributes before its keyword.
        let declaration = try NSRegularExpression(
            pattern: #"^(?:@\S+\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|open)\s+)*(?:struct|class|enum|protocol|actor)\s"#,
            options: .anchorsMatchLines)
        var crowded: [String] = []
        var counted = 0
        for folder in Self.folders {
            for file in try Self.swiftFiles(in: folder) {
                let types = declaration.numberOfMatches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text))
                counted += 1
                if types > 3 { crowded.append("\(file.path): \(types)") }
            }
        }
        #expect(counted > 20, "\(counted) files read")
        #expect(crowded.isEmpty, "files with more than three top-level types: \(crowded)")
    }

    /// A type of internal access or wider is declared in `Name.swift`, so its name says where to look;
    /// its extensions may be elsewhere (`Name+Topic.swift`). A private type may stay with the type it helps.
    @Test func everyTypeIsDeclaredInAFileOfItsName() throws {
        var declared = 0
        var misplaced: [String] = []
        for folder in Self.folders {
            for file in try Self.swiftFiles(in: folder) where !file.path.hasSuffix("/Package.swift") {
                let fileName = (file.path as NSString).lastPathComponent
                for (name, modifiers) in Self.topLevelTypes(in: file.text) where !modifiers.contains("private") {
                    declared += 1
                    if fileName != name + ".swift" { misplaced.append("\(file.path): \(name)") }
                }
            }
        }
        #expect(declared > 200, "\(declared) types read")
        #expect(misplaced.isEmpty, "\(misplaced.count) of \(declared) types not in a file of their name:\n\(misplaced.joined(separator: "\n"))")
    }

    /// Every Swift file of the repository, sample plugins, tests, nested packages and the packages
    /// beside the root one too, is at most ``longest`` lines.
    @Test func noSourceFileIsLongerThan400Lines() throws {
        let files = try ["Sources", "Tests", "Plugins", "Integrations", "Examples", "Benchmarks", "Templates"]
            .flatMap { try Self.swiftFiles(in: $0) }
        let long = files.compactMap { file in
            let lines = file.text.utf8.count { $0 == UInt8(ascii: "\n") }  // as `wc -l` counts them
            return lines > Self.longest ? "\(file.path): \(lines)" : nil
        }
        #expect(files.count > 400, "\(files.count) files read")
        #expect(long.isEmpty, "files over \(Self.longest) lines: \(long)")
    }

    /// `PluginHost` keeps the host's state, its locks and the swap; what a load, a reload or a plugin's
    /// process does lives in the rooms below it (`Pipeline/`, `Reload/`, `OwnProcess/`). Its files stay
    /// short, and so does each of its functions.
    @Test func pluginHostIsStateAndSwap() throws {
        let files = try Self.swiftFiles(in: "Sources/HostKit/Lifecycle").filter { ($0.path as NSString).lastPathComponent.hasPrefix("PluginHost") }
        #expect(files.count >= 2, "\(files.map(\.path))")
        let lines = files.map { $0.text.split(separator: "\n", omittingEmptySubsequences: false).count }.reduce(0, +)
        #expect(lines <= 400, "PluginHost's files hold \(lines) lines")
        let long = files.flatMap { file in Self.functionLengths(in: file.text).filter { $0.lines > 60 }.map { "\(file.path): \($0.name), \($0.lines) lines" } }
        #expect(long.isEmpty, "functions of PluginHost over 60 lines: \(long)")
    }

    /// Each function and initializer of `text` with its length in lines, from its declaration to the
    /// brace that closes it at the same indentation.
    static func functionLengths(in text: String) -> [(name: String, lines: Int)] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [(name: String, lines: Int)] = []
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: #/^(\s*)(?:[@\w()]+\s+)*(func\s+\w+|init)\b/#) else { continue }
            let close = String(match.1) + "}"
            guard let end = lines[index...].firstIndex(where: { $0 == close }) else { continue }
            found.append((String(match.2), end - index + 1))
        }
        return found
    }

    /// The Swift files under `folder`, by their path from the repository's root. Hidden folders are left
    /// out: a nested package built on its own keeps its `.build` inside, which holds no source of ours.
    static func swiftFiles(in folder: String) throws -> [(path: String, text: String)] {
        let base = repositoryRoot.appendingPathComponent(folder)
        var files: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: base.path)
        while let file = enumerator?.nextObject() as? String {
            if (file as NSString).lastPathComponent.hasPrefix(".") {
                enumerator?.skipDescendants()
            } else if file.hasSuffix(".swift") {
                files.append(file)
            }
        }
        return try files.sorted().map { (folder + "/" + $0, try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The names of the types (and type aliases) declared at a file's top level (column 0: not nested),
    /// each with the modifiers before its keyword.
    static func topLevelTypes(in text: String) -> [(name: String, modifiers: String)] {
        text.split(separator: "\n").filter { $0.first.map { !$0.isWhitespace && $0 != "}" && $0 != "/" } ?? false }.compactMap { line in
            line.firstMatch(of: #/^(?:@\w+(?:\([^)]*\))?\s+)*((?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|open|distributed)\s+)*)(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)/#)
                .map { (String($0.2), String($0.1)) }
        }
    }
}
