import Foundation
import TestSupport
import Testing

/// ARCHITECTURE.md and SECURITY.md say where things are, and a reader opens the file they name: every
/// source path they name in backticks must be a file or folder where they mean it, and every
/// declaration they name with a file must be in that file. (`DocumentedNamesTests` checks that each name
/// exists somewhere; SECURITY.md's door 19 once named `ChildControlService.load` in a file that only
/// used the type, which it could not see.)
///
/// A path (no spaces; a `/`, or an ending `.swift`, `.c`, `.h`; starting with a capital or a dot, or with
/// one of those endings) is read from the repository's root, `Sources/`, `Sources/HostKit/`,
/// `Sources/PluginAPI/` or `Sources/PluginActors/` (SECURITY.md: "Files are named by their folder under
/// `Sources/HostKit` or `Sources/PluginAPI`"; the map's tables by their folder under `Sources/`, the
/// PluginActors table under `Sources/PluginActors`); a file name alone is a file of that name under
/// `Sources/` (or at the root). A declaration is named with a file in four ways, as the docs write it:
/// - `` `File.swift` (`Type.member`, `member`, `Type`) ``: each name in the parentheses that is a whole
///   item (an item with other words, "with the C target `CStackPosition`", is not read);
/// - `` `Type.member` (`File.swift`, ...) ``: a name, then its file first in parentheses;
/// - `` `File.swift`: `Type`, `Other` ``: the types listed after a colon (`ProcessControl.c`: `prlimit`
///   says what the file calls);
/// - in a code block (the paths of a load, a get, a call), `Type.member   Folder/File.swift: ...` and
///   `Type.member (Folder/File.swift)`.
/// `Type.member` is in a file that declares or extends `Type` and declares `member`; `member` or `Type`
/// alone, in a file that declares it (a type: or extends it). A folder stands for the files under it.
@Suite struct DocumentedPlacesTests {
    static let documents = ["ARCHITECTURE.md", "SECURITY.md"]
    /// Where a path the docs name is read from, in this order.
    static let bases = ["", "Sources/", "Sources/HostKit/", "Sources/PluginAPI/", "Sources/PluginActors/"]

    @Test func everySourcePathTheDocsNameIsWhereTheyMeanIt() throws {
        let places = Places(root: repositoryRoot)
        let (checked, missing) = try Self.check({ try Self.backticked(in: $0).filter(Self.isSourcePath) }) { span in
            places.resolve(span).isEmpty ? "`\(span)`" : nil
        }
        #expect(checked > 150, "\(checked) paths checked")
        #expect(missing.isEmpty, "the docs name paths that are not under \(Self.bases):\n\(missing.joined(separator: "\n"))")
    }

    @Test func everyDeclarationTheDocsNameWithAFileIsInThatFile() throws {
        let places = Places(root: repositoryRoot)
        let (checked, problems) = try Self.check(Self.pairs(in:), problem: places.problem(with:))
        #expect(checked > 30, "\(checked) names with their files checked")
        #expect(problems.isEmpty, "the docs name declarations in files that do not hold them:\n\(problems.joined(separator: "\n"))")
    }

    /// How many of what `items` reads in each of ``documents`` were checked, and the `problem` of each
    /// that has one, after its document's name.
    static func check<Item>(_ items: (String) throws -> [Item], problem: (Item) -> String?) throws -> (checked: Int, problems: [String]) {
        var checked = 0
        var problems: [String] = []
        for document in documents {
            for item in try items(read(document)) {
                checked += 1
                if let problem = problem(item) { problems.append("\(document): \(problem)") }
            }
        }
        return (checked, problems)
    }

    /// ARCHITECTURE.md's "What lives where" table: each folder a row names is under `Sources/`, and a file
    /// a row names by its name alone lies in one of the row's folders.
    @Test func eachFileTheMapsTableNamesAloneIsInItsRowsFolders() throws {
        let places = Places(root: repositoryRoot)
        var checked = 0
        var misplaced: [String] = []
        for (folders, what) in try DocumentedNamesTests.mapsTableRows() {
            for folder in folders where !places.isFolder(folder) { misplaced.append("\(folder) is no folder") }
            for file in try Self.backticked(in: what) where Self.isSourcePath(file) && !file.contains("/") {
                checked += 1
                if !places.resolve(file).contains(where: { path in folders.contains { path.hasPrefix($0 + "/") } }) {
                    misplaced.append("\(file) is not in \(folders.joined(separator: " or "))")
                }
            }
        }
        #expect(checked >= 5, "\(checked) files named alone in the table")
        #expect(misplaced.isEmpty, "ARCHITECTURE.md's table names files where they are not: \(misplaced)")
    }

    /// Door 19 as it stood (its file gone now), with that file's new path (which uses the type but does not
    /// declare the method), and as it is fixed: only the last passes.
    @Test func door19sOldFileFailsAndTheRightOnePasses() throws {
        let places = Places(root: repositoryRoot)
        func problems(_ text: String) throws -> [String] { try Self.pairs(in: text).compactMap(places.problem(with:)) }
        #expect(try problems("| `Pipeline/PluginChild.swift` (`ChildControlService.load`) |").count == 1)
        #expect(try problems("| `OwnProcess/Child/PluginChild.swift` (`ChildControlService.load`) |").count == 1)
        #expect(try problems("| `OwnProcess/ChildControlService.swift` (`ChildControlService.load`) |").isEmpty)
    }

    @Test func namesAreReadWithTheirFilesAsTheDocsWriteThem() throws {
        let text = """
            | 1 | x | y | `Discovery/PluginDiscovery.swift` (`PluginDiscovery.candidate`, `scan`), `LibraryClosure.check` \
            (`DynamicLoading/Linker/LibraryClosure.swift`), `Engine/StackHeadroom.swift` (`StackHeadroom`, with the C \
            target `CStackPosition`), `ServiceResolver.getService(key:)` (`Locator/ServiceResolver.swift`, read by `X.y`) |
            its messages in `OwnProcess/ChildLoadRequest.swift`: `ChildLoadRequest`, `Other`; not `Third`, and `C.c`: `called`

            ```
            ServiceLocator.service(key:)       Locator/ServiceLocator.swift: FrozenSlots.lookup (Engine/FrozenSlots.swift)
               the other process               its reader thread (not a pair)
            ```
            `Outside` (a word) `Folder/` (`inside`)
            """
        let pairs = try Self.pairs(in: text).map { "\($0.name) in \($0.path)" }
        #expect(pairs == [
            "PluginDiscovery.candidate in Discovery/PluginDiscovery.swift",
            "scan in Discovery/PluginDiscovery.swift",
            "LibraryClosure.check in DynamicLoading/Linker/LibraryClosure.swift",
            "StackHeadroom in Engine/StackHeadroom.swift",
            "ServiceResolver.getService(key:) in Locator/ServiceResolver.swift",
            "ChildLoadRequest in OwnProcess/ChildLoadRequest.swift",
            "Other in OwnProcess/ChildLoadRequest.swift",
            "inside in Folder/",
            "ServiceLocator.service(key:) in Locator/ServiceLocator.swift",
            "FrozenSlots.lookup in Engine/FrozenSlots.swift",
        ])
    }

    // MARK: Reading the docs

    static func read(_ document: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(document), encoding: .utf8)
    }

    /// The text of each backticked span on one line.
    static func backticked(in text: String) throws -> [String] {
        try DocumentedNamesTests.backticked(in: text)
    }

    /// Whether a backticked span is a path of the repository's (not the system's, the loader's or a pattern).
    static func isSourcePath(_ span: String) -> Bool {
        let hasEnding = [".swift", ".c", ".h"].contains { span.hasSuffix($0) }
        guard !span.contains(" "), span.contains("/") || hasEnding, !span.hasPrefix("/"),
              !span.contains(where: { "<>*$".contains($0) }), let first = span.first else { return false }
        return first.isUppercase || first == "." || hasEnding
    }

    /// A declaration's name as the docs write it: `Type`, `member`, `Type.member`, `Type.member(label:)`.
    static func isDeclarationName(_ span: String) -> Bool {
        span.wholeMatch(of: #/[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\([A-Za-z0-9_:]*\))?/#) != nil
    }

    /// Each declaration `text` names with a file, in the order written: the forms of prose first, then
    /// those of code blocks.
    static func pairs(in text: String) throws -> [(name: String, path: String)] {
        var pairs: [(name: String, path: String)] = []
        var code: [Substring] = []
        var prose: [Substring] = []
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                inCode.toggle()
            } else if inCode {
                code.append(line)
            } else {
                prose.append(line)
            }
        }
        let span = try NSRegularExpression(pattern: "`([^`\n]+)`")
        for line in prose.map(String.init) {
            let whole = line as NSString
            for match in span.matches(in: line, range: NSRange(location: 0, length: whole.length)) {
                let head = whole.substring(with: match.range(at: 1))
                let after = whole.substring(from: match.range.location + match.range.length)
                if after.hasPrefix(" (") {
                    let items = Self.items(inParenthesesAt: after.dropFirst())
                    if isSourcePath(head) {
                        // `File.swift` (`name`, `name`, ...)
                        for item in items {
                            if let name = Self.wholeSpan(item), isDeclarationName(name) { pairs.append((name, head)) }
                        }
                    } else if isDeclarationName(head), let first = items.first, let path = Self.wholeSpan(first), isSourcePath(path) {
                        // `name` (`File.swift`, ...)
                        pairs.append((head, path))
                    }
                } else if after.hasPrefix(": `"), isSourcePath(head) {
                    // `File.swift`: `Type`, `Type` (types only: `ProcessControl.c`: `prlimit` says what it calls)
                    var rest = after.dropFirst(2)
                    while rest.first == "`", let end = rest.dropFirst().firstIndex(of: "`") {
                        let name = String(rest[rest.index(after: rest.startIndex)..<end])
                        guard isDeclarationName(name), name.first?.isUppercase == true else { break }
                        pairs.append((name, head))
                        rest = rest[rest.index(after: end)...]
                        guard rest.hasPrefix(", `") else { break }
                        rest = rest.dropFirst(2)
                    }
                }
            }
        }
        // Code blocks: `Name   Folder/File.swift: ...` and `Name (Folder/File.swift)`.
        let namePattern = #"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\([A-Za-z0-9_:]*\))?"#
        let pathPattern = #"[A-Za-z.][A-Za-z0-9_/+.-]*\.(?:swift|c|h)"#
        let column = try NSRegularExpression(pattern: "^\\s*(\(namePattern))\\s{2,}(\(pathPattern)):")
        let parenthesized = try NSRegularExpression(pattern: "(?<![A-Za-z0-9_.])(\(namePattern)) \\((\(pathPattern))\\)")
        for line in code.map(String.init) {
            let whole = line as NSString
            let range = NSRange(location: 0, length: whole.length)
            for match in column.matches(in: line, range: range) + parenthesized.matches(in: line, range: range) {
                pairs.append((whole.substring(with: match.range(at: 1)), whole.substring(with: match.range(at: 2))))
            }
        }
        return pairs
    }

    /// The items of the parentheses `text` opens, split at commas and semicolons outside backticks and
    /// inner parentheses.
    static func items(inParenthesesAt text: Substring) -> [String] {
        guard text.first == "(" else { return [] }
        var items: [Substring] = []
        var depth = 0, inSpan = false
        var start = text.index(after: text.startIndex)
        for index in text.indices {
            let character = text[index]
            if character == "`" { inSpan.toggle() }
            guard !inSpan else { continue }
            if character == "(" {
                depth += 1
            } else if character == ")" {
                depth -= 1
                if depth == 0 {
                    items.append(text[start..<index])
                    break
                }
            } else if depth == 1, character == "," || character == ";" {
                items.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        return items.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The text of `item` if it is one backticked span and nothing else.
    static func wholeSpan(_ item: String) -> String? {
        guard item.count > 2, item.first == "`", item.last == "`", item.dropFirst().dropLast().allSatisfy({ $0 != "`" }) else { return nil }
        return String(item.dropFirst().dropLast())
    }
}

/// The repository's files as the docs name them, and what each declares.
private struct Places {
    let root: URL
    /// Every file under `Sources/`, by its path from the root.
    let sourceFiles: [String]

    init(root: URL) {
        self.root = root
        let base = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        sourceFiles = files.filter { !$0.contains(".build/") }.map { "Sources/" + $0 }
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path) }

    func isFolder(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// The paths from the root that `span` may mean: by its folders, under one of the bases; a file name
    /// alone, a file of that name under `Sources/` or at the root.
    func resolve(_ span: String) -> [String] {
        let path = span.hasSuffix("/") ? String(span.dropLast()) : span
        if path.contains("/") { return DocumentedPlacesTests.bases.map { $0 + path }.filter(exists) }
        return sourceFiles.filter { ($0 as NSString).lastPathComponent == path } + (exists(path) ? [path] : [])
    }

    /// The code (no comments, no strings) of the files `span` means, a file or every source file under a
    /// folder (its build products left out), and whether each is C.
    func code(of span: String) -> [(code: String, isC: Bool)] {
        resolve(span).flatMap { path in
            guard isFolder(path) else { return [path] }
            let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(path).path)?.compactMap { $0 as? String } ?? []
            return files.filter { !$0.hasPrefix(".build/") && !$0.contains("/.build/") }.map { path + "/" + $0 }
        }.compactMap { path in
            guard [".swift", ".c", ".h"].contains(where: path.hasSuffix),
                  let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { return nil }
            return (LayerTests.code(of: text), !path.hasSuffix(".swift"))
        }
    }

    /// Nil if the files `pair.path` means declare `pair.name`; else what is wrong.
    func problem(with pair: (name: String, path: String)) -> String? {
        let files = code(of: pair.path)
        guard !files.isEmpty else { return "`\(pair.path)` (for `\(pair.name)`) is no source file or folder" }
        let names = pair.name.split(separator: "(").first.map { $0.split(separator: ".").map(String.init) } ?? []
        guard let first = names.first, let last = names.last else { return "`\(pair.name)` is no name" }
        let member = last == "init" || files.contains { Self.declares(last, in: $0.code, isC: $0.isC) }
        let type = names.count == 1 || files.contains { Self.declaresOrExtends(first, in: $0.code) }
        if member && type { return nil }
        return "`\(pair.name)` is not in `\(pair.path)`" + (type ? "" : " (no declaration or extension of \(first) there)")
    }

    /// Whether `code` declares `name`: a type, a member, a case (of a list too); in C, a function (its name
    /// and `(` on a line that starts with its type) or a macro.
    static func declares(_ name: String, in code: String, isC: Bool) -> Bool {
        let word = NSRegularExpression.escapedPattern(for: name)
        let patterns = isC ? [#"(?m)^[A-Za-z_][A-Za-z0-9_ *]*\b"# + word + #"\s*\("#, #"#define\s+"# + word + #"\b"#] : [
            #"\b(?:func|var|let|struct|class|enum|protocol|actor|typealias|associatedtype|extension)\s+`?"# + word + #"\b"#,
            #"(?m)^\s*(?:indirect\s+)?case\s+(?:[^\n]*,\s*)?"# + word + #"\b"#,
        ]
        return patterns.contains { code.range(of: $0, options: .regularExpression) != nil }
    }

    /// Whether `code` declares the type `name` or extends it.
    static func declaresOrExtends(_ name: String, in code: String) -> Bool {
        let word = NSRegularExpression.escapedPattern(for: name)
        return code.range(of: #"\b(?:struct|class|enum|protocol|actor|typealias|extension)\s+"# + word + #"\b"#,
                          options: .regularExpression) != nil
    }
}
