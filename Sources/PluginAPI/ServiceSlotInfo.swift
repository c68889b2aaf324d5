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
    /// True if the slot's factory is `async`: get it with ``ServiceLocator/tryServiceAsync(key:)``.
    public let isAsync: Bool

    /// Describes one slot.
    public init(key: String, serviceType: String, paramsType: String?, mode: ServiceFactoryMode, origin: String?,
                isAsync: Bool = false) {
        self.key = key
        self.serviceType = serviceType
        self.paramsType = paramsType
        self.mode = mode
        self.origin = origin
        self.isAsync = isAsync
    }

    public var description: String {
        let params = paramsType.map { "(\($0)) -> " } ?? ""
        return "'\(key)': \(params)\(serviceType) [\(isAsync ? "async " : "")\(mode)]" + (origin.map { " from \($0)" } ?? "")
    }
}
