import Foundation
@testable import HostKit
import TestSupport
import Testing

/// What HostKit prints of a plugin (its names, keys, errors) and of a file (its name, `dlerror`'s
/// reason) shows control characters escaped, so that they cannot forge lines or take over a
/// terminal; JSON keeps them exact.
@Suite struct TerminalTextTests {
    /// The fixture's name, as its source writes it.
    static let hostileName = "hostile\u{1B}]0;pwned\u{07}\nhost: loaded fake 9.9"

    @Test func controlAndFormatCharactersAreEscapedAndTheRestIsKept() {
        #expect(TerminalText.escaped("a\u{1B}[2Jb\u{07}\n\r\t\u{0}\u{7F}\u{009B}\u{202E}\u{2028}")
            == #"a\u{1B}[2Jb\u{07}\n\r\t\0\u{7F}\u{009B}\u{202E}\u{2028}"#)
        #expect(TerminalText.escaped("größe 大きい 🎉 \\n") == "größe 大きい 🎉 \\n")
    }

    /// Text escaped once is left alone: a description embedding another one escapes nothing twice.
    @Test func escapingTwiceChangesNothing() {
        let raw = "a\u{1B}b\nc\\d\u{202E}"
        #expect(TerminalText.escaped(TerminalText.escaped(raw)) == TerminalText.escaped(raw))
        let nested = PluginLoadError.startFailed(plugin: "p", reason: HookOutcome.failed("x\u{1B}y").description)
        #expect(nested.description == #"plugin 'p': start failed: x\u{1B}y; its services were removed"#)
    }

    /// Every field that comes from outside is escaped in a description, `dlerror`'s reason included.
    @Test func everyErrorDescriptionIsOneEscapedLine() {
        let path = "/tmp/evil\n\u{1B}[2J.so"
        let errors: [PluginLoadError] = [
            .notFound(path: path),
            .notASharedLibrary(path: path, reason: "\(path): invalid ELF header\nhost: loaded fake 9.9"),
            .registrationFailed(plugin: Self.hostileName, reason: "\u{1B}]0;title\u{07}"),
            .keyConflict(key: "k\n", plugin: Self.hostileName, providedBy: "\u{9B}"),
            .incompatibleLibraries(path: path, mismatches: [.ownCopy(library: "SampleContracts", carrier: "lib\u{1B}.so")]),
            .compilerMismatch(path: path, plugin: "clang version \u{1B}[2J", host: "clang version 21"),
        ]
        for error in errors {
            #expect(!hasUnprintable(error.description), "\(error.description.debugDescription)")
        }
        #expect(errors[1].description.contains(#"/tmp/evil\n\u{1B}[2J.so: invalid ELF header\nhost: loaded fake"#))
    }

    /// JSON keeps each string exact, and writes what JSONEncoder leaves raw (DEL, C1, U+2028, a
    /// bidirectional override) as `\u` escapes.
    @Test func jsonIsExactAndHasNothingRaw() throws {
        let value = "a\u{1B}b\u{7F}c\u{9B}d\u{2028}e\u{202E}f\u{E0001}g\n"
        let json = encodeJSON(["value": value])
        #expect(!hasUnprintable(json, allowingNewlines: true), "\(json.debugDescription)")
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        #expect(decoded?["value"] == value)
    }

    /// A real plugin whose name, version, key, service and shutdown error are escape sequences and
    /// newlines: the report's lines and the shutdown report's show them escaped, the JSON exact.
    @Test func aHostilePluginsReportsHaveNoRawControlCharacters() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("FixtureHostileText"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.loaded.map(\.metadata?.name) == [Self.hostileName])
        #expect(!hasUnprintable(report.text), "\(report.text.debugDescription)")
        #expect(report.text.contains(#"loaded hostile\u{1B}]0;pwned\u{07}\nhost: loaded fake 9.9 6.6\u{1B}[2J\u{009B}31m\u{202E} ("#))
        let decoded = try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: [[String: Any]]]
        #expect(decoded?["plugins"]?.first?["name"] as? String == Self.hostileName)
        #expect(!hasUnprintable(report.json, allowingNewlines: true))

        let shutdown = host.shutdown()
        #expect(shutdown.problems.count == 1)
        #expect(!hasUnprintable(shutdown.text), "\(shutdown.text.debugDescription)")
        #expect(shutdown.text.contains(#"shutdown failed: no\u{1B}[2J\nhost: stopped everything"#), "\(shutdown.text)")
    }

    /// Whether `text` holds a character a terminal acts on or does not show (a newline only where
    /// allowed: JSON's own line breaks).
    private func hasUnprintable(_ text: String, allowingNewlines: Bool = false) -> Bool {
        text.unicodeScalars.contains { scalar in
            if allowingNewlines && scalar == "\n" { return false }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }
}
