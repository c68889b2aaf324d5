import Foundation

/// What a settings file's bytes say before anything decodes them, found in one pass without
/// recursion: how deep its objects and lists nest (decoding recurses once per level, and a small
/// thread stack overflows long before JSONDecoder's own bound), and the first member name an object
/// gives twice (JSONDecoder keeps one of them silently, so an override appended to the file would be
/// ignored; names are compared as Swift compares strings, `é` composed and decomposed alike, as the
/// decoded dictionary would merge them). Malformed JSON is left to the decoder.
struct SettingsFileScan {
    /// The deepest the objects and lists nest.
    private(set) var depth = 0
    /// The dotted path of the first name given twice in one object, if any.
    private(set) var duplicate: String?

    /// One open object (its names so far, whether a name comes next, the last name) or list.
    private struct Level {
        let isObject: Bool
        var names: Set<String> = []
        var expectsName: Bool
        var name: String?
    }

    init(_ bytes: [UInt8]) {
        var levels: [Level] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                let start = index - 1
                var escaped = false
                while index < bytes.count {
                    let inner = bytes[index]
                    index += 1
                    if escaped {
                        escaped = false
                    } else if inner == UInt8(ascii: "\\") {
                        escaped = true
                    } else if inner == UInt8(ascii: "\"") {
                        break
                    }
                }
                guard let last = levels.indices.last, levels[last].isObject, levels[last].expectsName else { continue }
                levels[last].expectsName = false
                let name = Self.string(Array(bytes[start ..< index]))
                levels[last].name = name
                if duplicate == nil, !levels[last].names.insert(name).inserted {
                    duplicate = levels.compactMap(\.name).joined(separator: ".")
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                levels.append(Level(isObject: byte == UInt8(ascii: "{"), expectsName: byte == UInt8(ascii: "{")))
                depth = max(depth, levels.count)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = levels.popLast()
            case UInt8(ascii: ","):
                if let last = levels.indices.last, levels[last].isObject { levels[last].expectsName = true }
            default: break
            }
        }
    }

    /// A JSON string literal (quotes included) as the decoder reads it; its bytes as they are if it
    /// does not decode (the decoder will refuse the file).
    private static func string(_ literal: [UInt8]) -> String {
        (try? JSONDecoder().decode(String.self, from: Data(literal))) ?? String(decoding: literal, as: UTF8.self)
    }
}
