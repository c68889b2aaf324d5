import Foundation

/// What `LayerTests` reads of a Swift file beyond the names of its types: the declarations in it, each
/// with the scopes it lies in, and the names it calls. Read from ``LayerTests/code(of:)`` (no comments,
/// no strings), so a name in a comment or a message declares and calls nothing.
extension LayerTests {
    /// A brace the declaration lies inside: a type's body, an extension's, or any other (a function's
    /// body, a closure, an `if`).
    struct Scope: Equatable {
        enum Kind: Equatable { case type, `extension`, other }
        let kind: Kind
        /// The type's or the extended type's name (`PluginProcesses.RestartPolicy`); empty for other braces.
        let name: String
    }

    /// One declaration: its keyword (`func`, `let`, `struct`, `extension`, ...), its name, the scopes
    /// around it (outermost first) and the rest of its line (a property's type, a function's signature).
    struct Declaration {
        let keyword: String
        let name: String
        let scopes: [Scope]
        let rest: String

        /// A member an extension adds (a method, a property, a nested type), or a function, variable or
        /// constant at the file's top level: a name others can call without naming a type it belongs to.
        var isExtensionMemberOrTopLevel: Bool {
            if scopes.isEmpty { return ["func", "var", "let"].contains(keyword) }
            return scopes.count == 1 && scopes[0].kind == .extension
                && ["func", "var", "let", "struct", "class", "enum", "actor", "typealias"].contains(keyword)
        }

        /// A property stored in a type (or a global): no function's body or closure around it, and no
        /// body of its own (a computed property, a protocol's requirement).
        var isStoredProperty: Bool {
            ["var", "let"].contains(keyword) && scopes.allSatisfy { $0.kind != .other } && storedType != nil
        }

        /// The type written after the property's name, up to its default value; nil if none is written or
        /// a body follows it (`{ get }`, a computed property).
        var storedType: String? {
            let text = rest.drop { $0 == " " }
            guard text.first == ":" else { return nil }
            let type = text.dropFirst().prefix { $0 != "=" && $0 != "{" }
            if type.endIndex < text.endIndex, text[type.endIndex] == "{" { return nil }
            return String(type).trimmingCharacters(in: .whitespaces)
        }

        /// Where it is declared: its scopes' names and its own (`PluginHost.processReport`).
        var qualifiedName: String {
            (scopes.filter { $0.kind != .other }.map(\.name) + [name]).joined(separator: ".")
        }
    }

    /// The words that introduce a declaration, and those that are no declaration's name.
    private static let declaring = try! NSRegularExpression(
        pattern: #"\b(func|var|let|case|struct|class|enum|protocol|actor|typealias|associatedtype|extension)\s+([A-Za-z_][A-Za-z0-9_.]*)"#)
    private static let keywords: Set<String> = [
        "func", "var", "let", "case", "struct", "class", "enum", "protocol", "actor", "typealias", "extension",
        "init", "static", "final", "private", "fileprivate", "internal", "package", "public", "open", "nonisolated",
        "distributed", "mutating", "override", "indirect", "weak", "unowned", "lazy", "async", "throws", "in", "is", "as",
    ]

    /// The declarations of `code` (``code(of:)``'s result), in the order they are written.
    static func declarations(in code: String) -> [Declaration] {
        // In UTF-16 units, as `NSString` counts the offsets of the matches below.
        let units = Array(code.utf16)
        // At each brace, the scopes open after it; a `{` is a type's or an extension's if what stands
        // before it since the last brace says so.
        var open: [Scope] = []
        var braces: [(offset: Int, scopes: [Scope])] = []
        var headerStart = 0
        let (opening, closing, semicolon) = (UInt16(UInt8(ascii: "{")), UInt16(UInt8(ascii: "}")), UInt16(UInt8(ascii: ";")))
        for (offset, unit) in units.enumerated() {
            switch unit {
            case opening:
                open.append(scope(opening: String(decoding: units[headerStart..<offset], as: UTF16.self)))
            case closing:
                _ = open.popLast()
            case semicolon:
                headerStart = offset + 1
                continue
            default:
                continue
            }
            braces.append((offset, open))
            headerStart = offset + 1
        }
        let text = code as NSString
        return declaring.matches(in: code, range: NSRange(location: 0, length: text.length)).compactMap { match in
            let name = text.substring(with: match.range(at: 2))
            let keyword = text.substring(with: match.range(at: 1))
            guard !keywords.contains(name) else { return nil }
            // The last brace before the declaration: the scopes it lies in.
            let offset = match.range.location
            var low = 0, high = braces.count
            while low < high {
                let middle = (low + high) / 2
                if braces[middle].offset < offset { low = middle + 1 } else { high = middle }
            }
            let end = match.range(at: 2).location + match.range(at: 2).length
            let line = text.lineRange(for: NSRange(location: end, length: 0))
            let rest = text.substring(with: NSRange(location: end, length: line.location + line.length - end))
            return Declaration(keyword: keyword, name: name, scopes: low == 0 ? [] : braces[low - 1].scopes,
                               rest: rest.trimmingCharacters(in: .newlines))
        }
    }

    /// What a `{` after `header` opens: a type's body (`final class Name: Sendable`), an extension's
    /// (`extension Name where ...`), or anything else.
    static func scope(opening header: String) -> Scope {
        let words = header.split { !($0.isLetter || $0.isNumber || $0 == "_") }
        let introducers: Set<Substring> = ["struct", "class", "enum", "protocol", "actor", "extension"]
        guard let index = words.lastIndex(where: introducers.contains), index + 1 < words.count else {
            return Scope(kind: .other, name: "")
        }
        // `class func`, `class var`, or a statement after the type's name: no type's body.
        let notType: Set<Substring> = ["func", "init", "var", "let", "subscript", "deinit", "in", "return", "if", "guard",
                                       "switch", "for", "while", "do", "catch", "else", "repeat", "defer"]
        guard !words[(index + 1)...].contains(where: notType.contains) else { return Scope(kind: .other, name: "") }
        let afterKeyword = header[words[index].endIndex...].drop { $0.isWhitespace }
        let name = afterKeyword.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
        guard !name.isEmpty else { return Scope(kind: .other, name: "") }
        return Scope(kind: words[index] == "extension" ? .extension : .type, name: String(name))
    }

    /// The names `code` calls or reaches as a member: `name(` and `.name`.
    static func calledNames(in code: String) -> Set<String> {
        let bytes = Array(code.utf8)
        func isNamePart(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte) || byte >= 0x80
        }
        var names: Set<String> = []
        var index = 0
        while index < bytes.count {
            guard isNamePart(bytes[index]) else {
                index += 1
                continue
            }
            let start = index
            while index < bytes.count, isNamePart(bytes[index]) { index += 1 }
            let afterDot = start > 0 && bytes[start - 1] == UInt8(ascii: ".")
            let beforeParenthesis = index < bytes.count && bytes[index] == UInt8(ascii: "(")
            if afterDot || beforeParenthesis, !(0x30...0x39).contains(bytes[start]) {
                names.insert(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }
        return names
    }
}
