import Foundation
import TestSupport
import Testing

/// PluginAPI, DynamicLoading, HostKit, ProcessSignals and `host` stay readable file by file: a file holds one concept, named after it, and at
/// most three top-level types (a concept and the small types only it uses).
@Suite struct SourceLayoutTests {
    @Test func noSourceFileHoldsMoreThanThreeTopLevelTypes() throws {
        // A declaration at column 0, with or without modifiers and attributes before its keyword.
        let declaration = try NSRegularExpression(
            pattern: #"^(?:@\S+\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|open)\s+)*(?:struct|class|enum|protocol|actor)\s"#,
            options: .anchorsMatchLines)
        var crowded: [String] = []
        var counted = 0
        for folder in ["Sources/PluginAPI", "Sources/DynamicLoading", "Sources/HostKit", "Sources/ProcessSignals", "Sources/host"] {
            let base = repositoryRoot.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") && !file.contains(".build") {
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                let types = declaration.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
                counted += 1
                if types > 3 { crowded.append("\(folder)/\(file): \(types)") }
            }
        }
        #expect(counted > 20, "\(counted) files read")
        #expect(crowded.isEmpty, "files with more than three top-level types: \(crowded)")
    }
}
