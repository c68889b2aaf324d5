/// The last lines a child process wrote, cut from the bytes as they come, in bounded memory: at most
/// ``maximumLines`` lines of at most ``maximumLineBytes`` bytes each, plus one line in the making of
/// at most that size, whatever the child writes. Lines are raw (any bytes, decoded as UTF-8 with
/// replacement characters): whoever prints them escapes them.
package struct OutputTail: Sendable {
    /// How many of the last lines are kept.
    package let maximumLines: Int
    /// The bytes kept of one line; a longer line is cut there and ends in "…".
    package let maximumLineBytes: Int
    /// The last complete lines, oldest first, without their line feeds.
    package private(set) var lines: [String] = []

    /// The line in the making: its first bytes, up to the cap.
    private var partial: [UInt8] = []
    /// Whether the line in the making has had bytes past the cap (dropped).
    private var cut = false

    package init(maximumLines: Int = 20, maximumLineBytes: Int = 1024) {
        self.maximumLines = max(1, maximumLines)
        self.maximumLineBytes = max(1, maximumLineBytes)
    }

    /// Takes the next bytes the child wrote; returns the lines they completed, in order.
    package mutating func append(_ bytes: some Collection<UInt8>) -> [String] {
        var completed: [String] = []
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: 0x0A) {
            take(rest[..<newline])
            completed.append(endLine())
            rest = rest[rest.index(after: newline)...]
        }
        take(rest)
        return completed
    }

    /// Ends the output: a last line without a line feed becomes a line, and is returned.
    package mutating func finish() -> String? {
        guard !partial.isEmpty || cut else { return nil }
        return endLine()
    }

    /// Keeps what fits of `bytes` in the line in the making.
    private mutating func take(_ bytes: some Collection<UInt8>) {
        let room = maximumLineBytes - partial.count
        if bytes.count > room { cut = true }
        partial += bytes.prefix(max(0, room))
    }

    /// Makes the line in the making a kept line, and starts the next.
    private mutating func endLine() -> String {
        let line = String(decoding: partial, as: UTF8.self) + (cut ? "…" : "")
        partial.removeAll(keepingCapacity: true)
        cut = false
        lines.append(line)
        if lines.count > maximumLines { lines.removeFirst(lines.count - maximumLines) }
        return line
    }
}
