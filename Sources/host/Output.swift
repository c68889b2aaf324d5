import Foundation
import HostKit

/// Writes to standard output and standard error: the one place the host turns text into lines.
///
/// Every line is escaped on its way out (``TerminalText/escaped(_:)``), whatever it holds: a
/// plugin's name, key or service, a file name, a reason. A newline or an escape sequence in one of
/// them is shown, never acted on, so it cannot forge a line of the host's or take over the terminal.
/// HostKit's descriptions come escaped already; escaping is idempotent, so they pass unchanged.
enum Output {
    /// Prints one line.
    static func line(_ line: String) {
        lines([line])
    }

    /// Prints each element on a line of its own.
    static func lines(_ lines: [String]) {
        print(lines.map { TerminalText.escaped($0) }.joined(separator: "\n"))
    }

    /// Prints JSON as it is: `encodeJSON` escaped every string in it, keeping its value exact.
    static func json(_ text: String) {
        print(text)
    }

    /// One line on stderr after `host: `.
    static func problem(_ line: String) {
        standardError("host: \(TerminalText.escaped(line))")
    }

    /// A refusal of HostKit's on stderr, with the flag of this command that would have let the file
    /// in, if one would (HostKit's description names the option of its API).
    static func problem(_ error: PluginLoadError) {
        problem(error.description, refusal: error)
    }

    /// `line`, which tells of `refusal` (a reload's `kept` or `refused` entry), on stderr with the flag
    /// that would have let the file in, as for a refusal of the load.
    static func problem(_ line: String, refusal: PluginLoadError) {
        if case .shadowFolderUnusable = refusal {
            return problem("\(line): with host, --shadow-folder DIR")
        }
        let flag = refusal.allowedBy.flatMap(Arguments.flag(for:))
        problem(flag.map { "\(line); \($0) loads it anyway" } ?? line)
    }

    /// Text of the host's own on stderr, after what stdout holds so far. A stderr that has gone (a
    /// closed pipe) loses the text, never the host.
    static func standardError(_ text: String) {
        // What stdout holds goes first: to a pipe or a file it is buffered, and both may be one file
        // (`2>&1`), where a line on stderr must not come above the stdout line that announces it.
        fflush(nil)
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    /// Left-aligned columns under a header, two spaces apart, each cell escaped first so that the
    /// columns line up as printed.
    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = ([header] + rows).map { $0.map { TerminalText.escaped($0) } }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
