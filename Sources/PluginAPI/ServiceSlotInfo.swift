/// What one slot of a ``ServiceLocator`` holds, for listings and tooling.
public struct ServiceSlotInfo: Sendable, Hashable, CustomStringConvertible {
    /// The store key.
    public let key: String
    /// The full name of the service type the slot was made for.
    public let serviceType: String
    /// The full name of the parameters type, for slots with parameters.
    public let paramsType: String?
    /// How the slot's provider keeps its service (`many` for slots with parameters).
    public let mode: ServiceFactoryMode
    /// The module that added the slot, or `nil` if it was added directly.
    public let origin: String?

    public var description: String {
        let params = paramsType.map { "(\($0)) -> " } ?? ""
        return "'\(key)': \(params)\(serviceType) [\(mode)]" + (origin.map { " from \($0)" } ?? "")
    }
}
