/// A JSON object that writes every field, `null` for an absent one, in a fixed order: readers of
/// `host ... --json` can rely on each key being there (synthesized `Encodable` leaves out nil).
protocol JSONRecord: Encodable {
    /// The fields in order: each name with its value, nil for `null`.
    var fields: [(name: String, value: (any Encodable)?)] { get }
}

extension JSONRecord {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldName.self)
        for (name, value) in fields {
            if let value {
                try container.encode(value, forKey: FieldName(name))
            } else {
                try container.encodeNil(forKey: FieldName(name))
            }
        }
    }
}
