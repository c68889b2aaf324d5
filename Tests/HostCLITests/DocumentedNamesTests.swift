import Foundation
import TestSupport
import Testing

/// ARCHITECTURE.md, SECURITY.md and the design records (`Docs/Records`) name files and types in backticks:
/// every one must exist, or the docs describe code that is gone (as `GuaranteeTablesTests` does for the
/// test names in the tables).
///
/// A backticked span is read as one of two kinds; anything else (a flag, a call with spaces, a C name in
/// capitals, a lowercase member, a commit hash) is left alone:
/// - **A path**: no spaces, and a `/` or an ending `.swift`, `.c`, `.h` or `.md`. It is checked when it
///   starts with a capital or a dot (`Engine/Slot.swift`, `.ci/run`) or has one of those endings, and must
///   then be a file or folder of the repository, whole or by its last components (`Loading/PluginHeader.swift`
///   is `Sources/HostKit/Loading/PluginHeader.swift`). A path from `/` is the system's (`/etc/ld.so.cache`),
///   a lowercase one the loader's (`tls/x86_64`), and one with `<`, `*` or `$` a pattern: not checked.
/// - **An identifier**: camel case, its first name without `_` (a C name has one: `dl_iterate_phdr`),
///   maybe with members after dots and argument labels (`PluginHost.retire`,
///   `ServiceResolver.getService(key:)`, `setReadOnly`). UpperCamelCase (a capital first, a lowercase
///   letter after) must be declared in the repository's Swift sources (a type, a case, a member) or name
///   a folder or file (a target such as `CDynamicLinker`, a package such as `SampleContracts`);
///   lowerCamelCase (a lowercase letter first, a capital after; `dlopen` is neither) must be declared.
///   Each member must be declared somewhere as a type, case, func, var or let (`init` always is): that it
///   is declared on that very type is not checked. A library's file name (`libPluginAPI.so`) is no
///   identifier. Names Swift, Foundation, Dispatch and SwiftPM declare are listed in `outside`; their
///   members are not checked.
@Suite struct DocumentedNamesTests {
    /// Declared outside this repository, and named in the docs.
    static let outside: Set<String> = [
        "Any", "AnyHashable", "AsyncSequence", "Atomic", "CommandLine", "DispatchSemaphore", "FileHandle",
        "FileManager", "Hashable", "JSONEncoder", "Mirror", "NSClassFromString", "NSCondition", "NSLock",
        "ObjectIdentifier", "Optional", "Process", "Sendable", "StaticString", "String", "Synchronization",
        "Unmanaged", "UnsafeBufferPointer", "UnsafeRawPointer",
        "linkedLibrary", "loadUnaligned", "storeBytes", "unsafeBitCast", "unsafeDowncast", "withUnsafeMutableBytes",
    ]

    @Test func everyFileAndTypeTheDocsNameExists() throws {
        let repository = try Repository(root: repositoryRoot)
        let records = try recordFiles()
        #expect(records.count >= 20, "\(records.count) design records read")
        var checked = 0
        var missing: [String] = []
        for document in ["ARCHITECTURE.md", "SECURITY.md"] + records {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(document), encoding: .utf8)
            for span in try Self.backticked(in: text) {
                guard let problem = repository.problem(with: span) else { continue }
                if problem.isEmpty { checked += 1 } else { missing.append("\(document): `\(span)` \(problem)") }
            }
        }
        #expect(checked > 300, "\(checked) names checked")
        #expect(missing.isEmpty, "the docs name what the repository does not have:\n\(missing.joined(separator: "\n"))")
    }

    /// ARCHITECTURE.md's "What lives where" table: each row names folders under `Sources/` and what lives
    /// there; every type a row names must live in one of its folders (a file named after it, a file that
    /// declares it, or a folder of that name), so a type moved elsewhere fails here until the map says so.
    @Test func theMapsTableSaysWhereEachTypeLives() throws {
        let repository = try Repository(root: repositoryRoot)
        var checked = 0
        var misplaced: [String] = []
        for (folders, what) in try Self.mapsTableRows() {
            for name in try Self.backticked(in: what) where name.allSatisfy({ $0.isLetter || $0.isNumber })
                && name.first?.isUppercase == true {
                checked += 1
                if !folders.contains(where: { repository.folder($0, holds: name) }) {
                    misplaced.append("\(name) is not in \(folders.joined(separator: " or "))")
                }
            }
        }
        #expect(checked > 40, "\(checked) names in the table checked")
        #expect(misplaced.isEmpty, "ARCHITECTURE.md's table puts types where they do not live: \(misplaced)")
    }

    /// The index lists each record once, and every `PH-NNNN` the map, SECURITY.md and the records cite
    /// is a record.
    @Test func theRecordsIndexListsEveryRecordOnceAndEveryCitedRecordExists() throws {
        let index = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/Records/README.md"), encoding: .utf8)
        let records = try recordFiles()
        #expect(!records.isEmpty)
        for record in records {
            let name = (record as NSString).lastPathComponent
            let lines = index.split(separator: "\n").filter { $0.hasPrefix("- [") && $0.contains("(\(name))") }
            #expect(lines.count == 1, "Docs/Records/README.md lists \(name) \(lines.count) times")
        }
        let numbers = Set(records.map { String(($0 as NSString).lastPathComponent.prefix(7)) })
        let citation = try NSRegularExpression(pattern: "PH-[0-9]{4}")
        for document in ["ARCHITECTURE.md", "SECURITY.md"] + records {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(document), encoding: .utf8)
            let cited = citation.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range, in: text).map { String(text[$0]) }
            }
            let unknown = Set(cited).subtracting(numbers)
            #expect(unknown.isEmpty, "\(document) cites records that do not exist: \(unknown.sorted())")
        }
    }

    /// The design records, as paths from the repository's root.
    private func recordFiles() throws -> [String] {
        let folder = repositoryRoot.appendingPathComponent("Docs/Records")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix("PH-") && $0.hasSuffix(".md") }
            .sorted()
            .map { "Docs/Records/\($0)" }
    }

    /// ARCHITECTURE.md's "What lives where" table, row by row: the folders a row names, as paths from the
    /// repository's root (`Sources/HostKit/Reload`), and what it says lives there.
    static func mapsTableRows() throws -> [(folders: [String], what: String)] {
        let map = try String(contentsOf: repositoryRoot.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let start = try #require(map.range(of: "## What lives where\n"))
        let table = String(map[start.upperBound...]).components(separatedBy: "\n## ").first ?? ""
        return try table.split(separator: "\n").filter { $0.hasPrefix("| `") }.compactMap { row in
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cells.count >= 4 else { return nil }
            return (try backticked(in: cells[1]).map { "Sources/" + ($0.hasSuffix("/") ? String($0.dropLast()) : $0) }, cells[2])
        }
    }

    /// The text of each backticked span on one line.
    static func backticked(in text: String) throws -> [String] {
        let span = try NSRegularExpression(pattern: "`([^`\n]+)`")
        return span.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}

/// The repository's files and folders, and the names its Swift sources declare.
private struct Repository {
    let root: URL
    var paths: [String] = []
    var baseNames: Set<String> = []
    var declared: Set<String> = ["init"]

    init(root: URL) throws {
        self.root = root
        let rootPath = root.standardizedFileURL.path + "/"
        let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        let declaration = try NSRegularExpression(
            pattern: #"\b(?:struct|class|enum|protocol|actor|typealias|associatedtype|func|var|let|case)\s+`?([A-Za-z_][A-Za-z0-9_]*)"#)
        let caseList = try NSRegularExpression(pattern: #"^\s*(?:indirect\s+)?case\s+(.*)$"#, options: .anchorsMatchLines)
        while let url = walk?.nextObject() as? URL {
            let name = url.lastPathComponent
            // Build products, checkouts and git's own files are not the repository's.
            if [".build", ".git", ".swiftpm"].contains(name) {
                walk?.skipDescendants()
                continue
            }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(rootPath) else { continue }
            paths.append(String(path.dropFirst(rootPath.count)))
            baseNames.insert((name as NSString).deletingPathExtension)
            guard name.hasSuffix(".swift"), let source = try? String(contentsOf: url, encoding: .utf8) else { continue }
            // Code only: a comment's "let go" or "a case of" declares nothing.
            let text = source.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { line in !["//", "*", "/*"].contains { line.drop { $0 == " " }.hasPrefix($0) } }
                .joined(separator: "\n")
            let whole = NSRange(text.startIndex..., in: text)
            for match in declaration.matches(in: text, range: whole) {
                if let range = Range(match.range(at: 1), in: text) { declared.insert(String(text[range])) }
            }
            // `case a, b(Int), c`: every case of the list, not only the first.
            for match in caseList.matches(in: text, range: whole) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                for item in Self.withoutParentheses(String(text[range])).split(separator: ",") {
                    let name = item.drop { $0 == " " }.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                    if !name.isEmpty { declared.insert(String(name)) }
                }
            }
        }
    }

    /// Whether `folder` (a path from the root) holds a file or folder named `name`, or a Swift file that
    /// declares a type `name`.
    func folder(_ folder: String, holds name: String) -> Bool {
        let inside = paths.filter { $0.hasPrefix(folder + "/") }
        if inside.contains(where: { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension == name }) {
            return true
        }
        let pattern = "\\b(?:struct|class|enum|protocol|actor|typealias)\\s+\(name)\\b"
        return inside.contains { path in
            guard path.hasSuffix(".swift"),
                  let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { return false }
            return text.range(of: pattern, options: .regularExpression) != nil
        }
    }

    /// Nil if `span` is neither a path nor an identifier this test checks; empty if it exists; else
    /// what is missing.
    func problem(with span: String) -> String? {
        if let kind = Self.pathKind(span) {
            guard kind else { return nil }
            let wanted = span.hasSuffix("/") ? String(span.dropLast()) : span
            return paths.contains { $0 == wanted || $0.hasSuffix("/" + wanted) } ? "" : "is no file or folder"
        }
        guard !span.hasSuffix(".so") else { return nil }
        let names = Self.withoutParentheses(span).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = names.first, !first.contains("_"), Self.isUpperCamelCase(first) || Self.isLowerCamelCase(first),
              names.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } })
        else { return nil }
        if DocumentedNamesTests.outside.contains(first) { return "" }
        let known = declared.contains(first) || (Self.isUpperCamelCase(first) && baseNames.contains(first))
        guard known else { return "is declared nowhere" }
        let members = names.dropFirst().filter { !["self", "Type", "Protocol"].contains($0) }
        let unknown = members.filter { !declared.contains($0) }
        return unknown.isEmpty ? "" : "has no member \(unknown.joined(separator: ", ")) declared anywhere"
    }

    /// Nil if `span` is no path; true if it is one this test checks, false for the system's, the loader's
    /// and patterns.
    private static func pathKind(_ span: String) -> Bool? {
        let endings = [".swift", ".c", ".h", ".md"]
        let hasEnding = endings.contains { span.hasSuffix($0) }
        guard !span.contains(" "), span.contains("/") || hasEnding else { return nil }
        if span.hasPrefix("/") || span.contains(where: { "<>*$".contains($0) }) { return false }
        guard let first = span.first else { return false }
        return first.isUppercase || first == "." || hasEnding
    }

    private static func isUpperCamelCase(_ name: String) -> Bool {
        guard let first = name.first, first.isUppercase else { return false }
        return name.contains { $0.isLowercase }
    }

    private static func isLowerCamelCase(_ name: String) -> Bool {
        guard let first = name.first, first.isLowercase else { return false }
        return name.contains { $0.isUppercase }
    }

    /// `text` with every parenthesized or angle-bracketed part taken out: argument labels, associated
    /// values, generic arguments (`Lock<Value>` is `Lock`).
    private static func withoutParentheses(_ text: String) -> String {
        var result = "", depth = 0
        for character in text {
            if "(<".contains(character) { depth += 1 } else if ")>".contains(character) { depth = max(0, depth - 1) } else if depth == 0 {
                result.append(character)
            }
        }
        return result
    }
}
