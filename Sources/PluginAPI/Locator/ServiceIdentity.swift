/// Names one service in errors and logs: its type and, when it lives in a locator, its key.
public struct ServiceIdentity: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: a metatype is immutable. The type's name is made only when asked for: making it
    // costs more than the rest of a registration.
    /// The store key of the locator slot, or `nil` for a provider used on its own.
    public let key: String?
    /// The service type.
    let type: Any.Type

    /// The full name of the service type, as `String(reflecting:)` writes it.
    public var typeName: String { TypeName.of(type) }

    /// An identity for a service of type `type`, optionally stored under `key`.
    init(key: String? = nil, type: Any.Type) {
        self.key = key
        self.type = type
    }

    /// `key (Type)` or just `Type`.
    public var description: String {
        let typeName = typeName
        guard let key, key != typeName else { return typeName }
        return "\(key) (\(typeName))"
    }
}
