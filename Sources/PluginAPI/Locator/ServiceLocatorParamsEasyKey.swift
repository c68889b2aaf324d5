/// A ready-made key for a slot with parameters; see ``ServiceLocatorEasyKey``.
public struct ServiceLocatorParamsEasyKey<Service: Sendable, Params>: ServiceLocatorParamsKey {
    /// The service's full type name, or the name given.
    public let storeKey: String

    /// A key named `name`, by default after the service type.
    public init(name: String = String(reflecting: Service.self)) {
        storeKey = name
    }
}
