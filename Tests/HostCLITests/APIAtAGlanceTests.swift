import Foundation
import TestSupport
import Testing

/// The README's "API at a glance" lists every public type and function of PluginAPI, HostKit, ProcessSignals and PluginActors,
/// and nothing else: a declaration made public, renamed or removed without the table fails here.
@Suite struct APIAtAGlanceTests {
    /// The top-level public declarations of the Swift files under `folder`, SPI ones left out.
    private func publicNames(under folder: String) throws -> Set<String> {
        let base = repositoryRoot.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        let declaration = try NSRegularExpression(
            pattern: "^(?:@[A-Za-z_]+(?:\\([^)]*\\))?\\s+)*public\\s+(?:final\\s+)?(?:class|struct|enum|protocol|func|actor)\\s+([A-Za-z_][A-Za-z0-9_]*)")
        var names: Set<String> = []
        for file in files where file.hasSuffix(".swift") && !file.contains(".build") && !file.hasSuffix("Package.swift") {
            let lines = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, line) in lines.enumerated() {
                guard let match = declaration.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                      let range = Range(match.range(at: 1), in: line) else { continue }
                let attributes = (index > 0 ? lines[index - 1] : "") + line
                if attributes.contains("@_spi(") { continue }
                names.insert(String(line[range]))
            }
        }
        return names
    }

    /// The backticked names in the README's "The API at a glance" section: types (capitalized) and
    /// functions (`name(_:)`).
    private func tableNames() throws -> Set<String> {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "### The API at a glance"))
        let rest = readme[start.upperBound...]
        let section = rest.range(of: "\n#").map { rest[..<$0.lowerBound] } ?? rest
        let text = String(section)
        let token = try NSRegularExpression(pattern: "`([A-Z][A-Za-z0-9]*|[a-z][A-Za-z0-9]*)(?:\\([a-z_:]*\\))?`")
        return Set(token.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            guard let range = Range(match.range(at: 1), in: text) else { return nil }
            let name = String(text[range])
            // Functions are listed with their labels, `exportPlugin(_:)`; a plain lowercase word is a member.
            let whole = Range(match.range, in: text).map { String(text[$0]) } ?? ""
            if name.hasSuffix("Tests") { return nil } // the test that checks the table, named in it
            return name.first?.isUppercase == true || whole.contains("(") ? name : nil
        })
    }

    @Test func theTableListsEveryPublicTypeAndNothingElse() throws {
        let declared = try publicNames(under: "Sources/PluginAPI").union(publicNames(under: "Sources/HostKit"))
            .union(publicNames(under: "Sources/ProcessSignals")).union(publicNames(under: "Sources/PluginActors"))
        let listed = try tableNames()
        #expect(declared.count > 30, "\(declared.sorted())")
        let unlisted = declared.subtracting(listed).sorted()
        let stale = listed.subtracting(declared).sorted()
        #expect(unlisted.isEmpty, "public, but not in the README's API at a glance: \(unlisted)")
        #expect(stale.isEmpty, "in the README's API at a glance, but not a public declaration: \(stale)")
    }

    /// The promise of PluginAPI's surface: at most 235 lines that declare something public, SPI
    /// included, counted as the project's issue counted them: 160 for PluginAPI 5.0, 13 more for
    /// 5.1's keys of distributed contracts and what HostKit reads of them, 4 SPI lines with which
    /// a host remakes the keys of a plugin in another process and serves its calls (issue 33),
    /// 5.2's one with which a host lends a plugin a resolver of its grants (issue 34), and 5.3's
    /// 16 of a plugin's own log (issue 34 item 2: `PluginLog`, its levels and swift-log's seven
    /// calls by level, the host's `PluginLogHandler`, `ServiceResolver.log`, two SPI initializers),
    /// and 4 of its counts of each slot (issue 34 item 3: `ServiceMetrics`, `ServiceSlotCounters`,
    /// `ServiceLocator.init(logger:metrics:)`, the SPI clone that counts with a host's metrics), and
    /// 5.4's 28 of a plugin's own settings (issue 34 item 4: `PluginSettings` and its nine typed reads,
    /// `PluginSecret` and its five members, `PluginSettingsError` and its four, the host's
    /// `PluginSettingsSource` and the default of its `loadBegins`, `ServiceResolver.settings`, the
    /// settings' empty mirror, and three SPI lines: the settings a host lends, a resolver lent with
    /// them, the keys a reload finds changed), and 5.4's 8 of what a plugin needs beyond the sandbox of
    /// a process of its own (issue 42: `PluginNeeds`, its four needs and initializer, `PluginMetadata.needs`
    /// and the initializer that takes them), and 5.4's SPI line with which a host reads its current
    /// locator from the source its resolvers read (issue 43: without the host's lock, which two
    /// threads each reading it for every request queued on): 235.
    @Test func pluginAPIHasAtMost235PublicDeclarationLines() throws {
        let base = repositoryRoot.appendingPathComponent("Sources/PluginAPI")
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        let line = try NSRegularExpression(pattern: "^\\s*(@\\w+(\\([^)]*\\))?\\s+)*public\\s")
        var count = 0
        for file in files where file.hasSuffix(".swift") && !file.contains(".build") {
            let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
            for source in text.split(separator: "\n").map(String.init)
            where line.firstMatch(in: source, range: NSRange(source.startIndex..., in: source)) != nil {
                count += 1
            }
        }
        #expect(count > 100 && count <= 235, "\(count) public declaration lines in PluginAPI")
    }
}
