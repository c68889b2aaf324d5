/// Why a provider could not hand out a service.
///
/// When services depend on each other the failure may happen deep down: ``service`` is the one whose
/// factory failed, ``pathServices`` leads from the service you asked for to it, and ``error`` is what
/// that factory threw (or a ``ServiceLocatorError``, such as ``ServiceLocatorError/cycle(path:acrossThreads:)``).
public struct ServiceObtainError: Error, CustomStringConvertible {
    /// The original error.
    public let error: any Error
    /// From the requested service (first) to the failing one (last).
    let path: [ServiceIdentity]

    /// Wraps `error`, thrown while making `service`.
    init(service: ServiceIdentity, error: any Error) {
        self.error = error
        self.path = [service]
    }

    init(error: any Error, path: [ServiceIdentity]) {
        self.error = error
        self.path = path
    }

    /// The service whose making failed.
    public var service: ServiceIdentity { path[path.count - 1] }

    /// Every service on the way, from the requested one (first) to the failing one (last).
    public var pathServices: [ServiceIdentity] { path }

    /// True when the failure happened in a dependency, not in the requested service itself.
    public var isNested: Bool { path.count > 1 }

    /// The same failure seen from `outer`, which was being made when it happened.
    func nested(in outer: ServiceIdentity) -> ServiceObtainError {
        ServiceObtainError(error: error, path: [outer] + path)
    }

    /// Everything in one line, suitable for a crash message or a log.
    public var fatalMessage: String {
        "Failed to obtain service \(path[0]): \(description)"
    }

    /// What failed, why, and on which path.
    public var description: String {
        let reason = String(describing: error)
        if isNested {
            let chain = path.map(\.description).joined(separator: " -> ")
            return "making \(service) failed: \(reason) (path: \(chain))"
        }
        return "making \(service) failed: \(reason)"
    }
}
