/// Names one service in errors and logs: its type and, when it lives in a locator, its key.
public struct ServiceIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The store key of the locator slot, or `nil` for a provider used on its own.
    public let key: String?
    /// The full name of the service type, as `String(reflecting:)` writes it.
    public let typeName: String

    /// An identity for a service of type `type`, optionally stored under `key`.
    public init(key: String? = nil, type: Any.Type) {
        self.key = key
        self.typeName = String(reflecting: type)
    }

    /// `key (Type)` or just `Type`.
    public var description: String {
        guard let key, key != typeName else { return typeName }
        return "\(key) (\(typeName))"
    }
}
