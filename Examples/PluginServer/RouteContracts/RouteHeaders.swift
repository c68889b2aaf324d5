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
