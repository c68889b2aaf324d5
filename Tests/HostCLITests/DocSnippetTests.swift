import Foundation
import TestSupport
import Testing

/// The Swift a reader copies from the README and from Getting started compiles against the built
/// PluginAPI and SampleContracts: each document's ```swift blocks, in order, as one program (their
/// imports first), beside what the document leaves to the reader and says so (`given`). Type-checked
/// with `swiftc -typecheck`, not linked: one compiler run per document, a few seconds each.
@Suite struct DocSnippetTests {
    /// What each document's snippets use without declaring it, each named in its prose.
    static let given: [String: String] = [
        "README.md": """
            import SampleContracts

            // The sample GreeterPlugin's greeter, whose file the README names.
            struct TimeOfDayGreeter: SampleContracts.Greeter {
                let clock: any Clock
                func greet(_ name: String) -> String { "Hello, \\(name)" }
            }
            """,
        "Sources/PluginAPI/PluginAPI.docc/GettingStarted.md": """
            import Foundation
            import PluginAPI
            import SampleContracts

            // A greeter that needs a clock, an account per user, a database to connect to: the
            // document names them as the reader's own types (the clock is the sample contracts').
            struct TimeOfDayGreeter: Greeter {
                let clock: any Clock
                func greet(_ name: String) -> String { "Hello, \\(name)" }
            }
            final class Account: Sendable { let user: String; init(user: String) { self.user = user } }
            struct Database: Sendable { static func connect(to url: URL) async throws -> Database { Database() } }
            let url = URL(fileURLWithPath: "/var/db")
            extension Keys {
                static let clock = SampleKeys.clock
                static let account = ServiceLocatorEasyKey<Account>()
                static let database = ServiceLocatorEasyKey<Database>()
            }
            """,
    ]

    @Test(.timeLimit(BuildSlot.testTimeLimit), arguments: ["README.md", "Sources/PluginAPI/PluginAPI.docc/GettingStarted.md"])
    func theSwiftBlocksOfADocumentCompile(_ document: String) async throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent(document), encoding: .utf8)
        let lines = swiftBlocks(in: text).joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        try #require(!lines.isEmpty, "\(document) has no ```swift block")
        let imports = Set(lines.filter { $0.hasPrefix("import ") }).sorted()
        let program = (imports + lines.filter { !$0.hasPrefix("import ") }).joined(separator: "\n") + "\n"

        let work = try TemporaryFolder()
        let main = try work.write("main.swift", Array(program.utf8))
        let given = try work.write("given.swift", Array((Self.given[document] ?? "").utf8))
        let modules = BuiltPlugins.directory + "/Modules"
        let compile = try await runBuild("/usr/bin/env", ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules,
                                                          "-module-name", "Snippets", main, given],
                                         in: URL(fileURLWithPath: work.path), log: URL(fileURLWithPath: work.path))
        #expect(compile.status == 0, "\(document)'s Swift does not compile:\n\(compile.output)\n\(program)")
    }

    /// The text of each ```swift block of a Markdown `text`, in order.
    private func swiftBlocks(in text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if let block = current, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(block.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
