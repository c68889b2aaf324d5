import Foundation
import TestSupport
import Testing

/// The README's Guarantees table and SECURITY.md's threat model name the tests behind each promise:
/// every one of them must exist, or the table says something no test checks.
@Suite struct GuaranteeTablesTests {
    @Test func everyTestTheTablesNameExists() throws {
        let root = repositoryRoot
        var sources = ""
        for folder in ["Tests", "Integrations/Tests", "Examples/PluginServer/Tests"] {
            let base = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                sources += (try? String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)) ?? ""
            }
        }
        // `SuiteTests.testName`, or `.testName` after one of those in the same cell (a test name is a
        // sentence: 16 characters or more, which keeps out `.lazy`, `.comment` and the like).
        let pattern = try NSRegularExpression(
            pattern: "`(?:[A-Z][A-Za-z]*Tests\\.([a-z][A-Za-z0-9]*)|\\.([a-z][A-Za-z0-9]{15,}))`")
        for table in ["README.md", "SECURITY.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(table), encoding: .utf8)
            let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
            let names = Set(matches.compactMap { match in
                (Range(match.range(at: 1), in: text) ?? Range(match.range(at: 2), in: text)).map { String(text[$0]) }
            })
            #expect(names.count > 20, "\(table): \(names.count) test names")
            let missing = names.sorted().filter { !sources.contains("func \($0)(") }
            #expect(missing.isEmpty, "\(table) names tests that no test file defines: \(missing)")
        }
    }
}
