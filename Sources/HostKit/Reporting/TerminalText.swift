/// Text from outside (a plugin's name, version or keys, a file name, `dlerror`'s reason, what a plugin
/// threw) made safe to print: a terminal acts on control characters (ESC starts a sequence that can
/// clear or retitle it, a newline or carriage return can forge a line of the host's own), and shows
/// format characters (bidirectional overrides) as nothing while they reorder what follows.
///
/// Every `description`, `summary` and `text` of HostKit is escaped so already; a host uses
/// ``escaped(_:)`` for what it prints of a plugin itself (its `PluginMetadata`, its services'
/// descriptions).
public enum TerminalText {
    /// `text` with every character a terminal would act on or not show written as a visible
    /// escape, as in a Swift literal: `\u{1B}` for ESC, `\n` for a newline, `\u{202E}` for a
    /// right-to-left override. Everything else, other languages' letters included, is kept.
    ///
    /// Escaping is idempotent: a backslash is kept as it is, so text escaped once passes through
    /// again unchanged and nothing is escaped twice. The price: a name that spells `\n` itself reads
    /// like one that holds a newline, but it never acts like one.
    public static func escaped(_ text: String) -> String {
        // The usual text is plain printable ASCII: nothing to build per character.
        if text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isUnprintable(scalar) {
                escaped += scalar.escaped(asASCII: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `bytes` read as UTF-8, each byte that is not part of valid UTF-8 shown as `\xFF`, then
    /// escaped as ``escaped(_:)``: how to show a name read from the system (a file name, an
    /// argument), which may be any bytes. `String(decoding:as:)` would show every bad byte as the same
    /// U+FFFD, and name a file that is not there.
    package static func escaped(bytes: some Collection<UInt8>) -> String {
        var text = ""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = bytes.startIndex
        decoding: while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded):
                text.unicodeScalars.append(Unicode.UTF8.decode(encoded))
                offset = bytes.index(offset, offsetBy: encoded.count)
            case let .error(length):
                let end = bytes.index(offset, offsetBy: length)
                for byte in bytes[offset..<end] {
                    text += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
                }
                offset = end
            case .emptyInput:
                break decoding
            }
        }
        return escaped(text)
    }

    /// True for what a terminal would act on or not show: control characters (C0, DEL, C1), format
    /// characters, line and paragraph separators, unassigned code points.
    static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        if (0x20..<0x7F).contains(scalar.value) { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned: return true
        default: return false
        }
    }
}
