/// A request's header fields, in the order they came, as a route plugin sees them. Names are
/// compared without regard to case, as HTTP compares them.
public struct RouteHeaders: Sendable {
    /// Every field as it came: a name given twice is here twice.
    public var fields: [(name: String, value: String)]

    /// The headers `fields`.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// The value of the first field named `name`, or nil if there is none.
    public subscript(name: String) -> String? {
        fields.first { Self.same($0.name, name) }?.value
    }

    /// The values of every field named `name`, in order (a `Cookie` or `Accept` may come several times).
    public func values(named name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether two field names are one (ASCII case folded, as field names are ASCII).
    private static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}

/// Each field as a two-element array, `[name, value]`, in order (since 1.2): tuples are not `Codable`.
extension RouteHeaders: Codable {
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var fields: [(name: String, value: String)] = []
        while !container.isAtEnd {
            let field = try container.decode([String].self)
            guard field.count == 2 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a header field is [name, value], not \(field.count) strings")
            }
            fields.append((name: field[0], value: field[1]))
        }
        self.init(fields)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for field in fields { try container.encode([field.name, field.value]) }
    }
}
