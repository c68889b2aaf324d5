import Foundation

/// Writes to standard output and standard error.
enum Output {
    static func line(_ text: String) {
        print(text)
    }

    static func problem(_ text: String) {
        standardError("host: \(text)")
    }

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Left-aligned columns under a header, two spaces apart.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
