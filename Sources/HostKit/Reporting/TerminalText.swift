// Text from outside (a plugin's name, version or keys, a file name, `dlerror`'s reason, what a plugin
// threw) made safe to print: a terminal acts on control characters (ESC starts a sequence that can
// clear or retitle it, a newline or carriage return can forge a line of the host's own), and shows
// format characters (bidirectional overrides) as nothing while they reorder what follows.

extension Unicode.Scalar {
    /// True for what a terminal would act on or not show: control characters (C0, DEL, C1), format
    /// characters, line and paragraph separators, unassigned code points.
    var isUnprintable: Bool {
        if (0x20..<0x7F).contains(value) { return false }
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned: return true
        default: return false
        }
    }
}

extension String {
    /// This text with every character a terminal would act on or not show written as a visible
    /// escape, as in a Swift literal: `\u{1B}` for ESC, `\n` for a newline, `\u{202E}` for a
    /// right-to-left override. Everything else, other languages' letters included, is kept.
    ///
    /// Every `description`, `summary` and `text` of HostKit is escaped so already; use this for what
    /// a host prints of a plugin itself (its ``PluginMetadata``, its services' descriptions).
    /// Escaping is idempotent: a backslash is kept as it is, so text escaped once passes through
    /// again unchanged and nothing is escaped twice. The price: a name that spells `\n` itself reads
    /// like one that holds a newline, but it never acts like one.
    public var escapedForTerminal: String {
        // The usual text is plain printable ASCII: nothing to build per character.
        if utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if scalar.isUnprintable {
                escaped += scalar.escaped(asASCII: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// `bytes` read as UTF-8, each byte that is not part of valid UTF-8 shown as `\xFF`, then
    /// escaped as ``escapedForTerminal``: how to show a name read from the system (a file name, an
    /// argument), which may be any bytes. `String(decoding:as:)` would show every bad byte as the same
    /// U+FFFD, and name a file that is not there.
    public init(escapingForTerminal bytes: some Collection<UInt8>) {
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
        self = text.escapedForTerminal
    }

    /// JSON text (as `JSONEncoder` writes it) with every unprintable character inside its strings
    /// written as a `\uXXXX` escape: the same value to a JSON reader, nothing raw for a terminal.
    /// `JSONEncoder` escapes only the control characters below U+0020; DEL, C1 controls (U+009B is
    /// a CSI to some terminals), bidirectional overrides and U+2028 it writes as they are.
    var jsonEscapingUnprintables: String {
        if utf8.allSatisfy({ $0 < 0x7F }) { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            // Below U+0020 only JSON's own whitespace is left: JSONEncoder escaped the rest.
            guard scalar.value >= 0x7F, scalar.isUnprintable else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            // JSON's escapes are UTF-16 code units: a scalar beyond the BMP takes a surrogate pair.
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16, uppercase: true)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return escaped
    }
}
