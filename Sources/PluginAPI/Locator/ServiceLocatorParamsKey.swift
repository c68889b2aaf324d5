/// A key for a slot whose service is made from parameters on every get.
public protocol ServiceLocatorParamsKey<Service, Params>: ServiceLocatorKey {
    /// The type of the parameters passed to the factory.
    associatedtype Params
}
