/// One JSON value of a settings file, a scalar kept as its text.
enum SettingsValue: Decodable, Sendable {
    case null
    case text(String)
    case list
    case object([String: SettingsValue])

    /// The deepest a file may nest: decoding recurses once per level (here and in JSONDecoder), and a
    /// small thread stack (`ulimit -s 256`) ends at about a hundred in a debug build, within JSONDecoder's 512.
    static let deepest = 32

    /// A number at `path` (dotted) that neither a whole number nor a `Double` holds.
    struct OutOfRange: Error {
        let path: String
    }

    init(from decoder: any Decoder) throws {
        if let members = try? decoder.container(keyedBy: Name.self) {
            var object: [String: SettingsValue] = [:]
            for key in members.allKeys { object[key.stringValue] = try members.decode(SettingsValue.self, forKey: key) }
            self = .object(object)
            return
        }
        if (try? decoder.unkeyedContainer()) != nil {
            self = .list
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self = .text(bool ? "true" : "false")
        } else if let int = try? single.decode(Int.self) {
            self = .text(String(int))
        } else if let whole = try? single.decode(UInt64.self) {
            // Past Int.max (an id): as a Double it would read rounded, in another spelling.
            self = .text(String(whole))
        } else if let double = try? single.decode(Double.self) {
            self = .text(String(double))
        } else if let text = try? single.decode(String.self) {
            self = .text(text)
        } else {
            // Valid JSON (`1e400`): said where, not "not JSON".
            throw OutOfRange(path: decoder.codingPath.map(\.stringValue).joined(separator: "."))
        }
    }

    /// Any member name.
    private struct Name: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
