/// Runs a factory for `service` on the current resolution path, wrapping and logging its errors.
/// `cell` identifies the core on the path, and `call` a params slot's call (its params); `owned`
/// marks a singleton being made, which other threads may wait for.
@inline(__always)
func runFactory<Service>(_ cell: AnyObject, call: ParamsOnPath = .none, _ service: ServiceIdentity,
                         mode: ServiceFactoryMode, owned: Bool, logger: (any ServiceLogger)?,
                         _ factory: () throws -> Service) throws(ServiceObtainError) -> Service {
    let id = ObjectIdentifier(cell)
    let parent = ResolutionTracker.current
    // A cycle detected right here already names this service. One detected deeper, inside the
    // factory, is nested below like any other failure, so the path starts at the requested service.
    try ResolutionTracker.checkPath(parent, cell: id, call: call, service: service)
    do {
        // A counting locator's slots time their factories; no other pays for a clock.
        if let counting = logger as? CountingLogger {
            let start = ContinuousClock.now
            let made = try ResolutionTracker.make(cell: id, call: call, service: service, parent: parent, owned: owned, factory)
            counting.made(service, mode: mode, in: start.duration(to: .now))
            return made
        }
        let made = try ResolutionTracker.make(cell: id, call: call, service: service, parent: parent, owned: owned, factory)
        logger?.log(.made(service, mode: mode))
        return made
    } catch {
        throw factoryFailed(error, making: service, logger: logger)
    }
}

/// Wraps what a factory threw so the caller sees which service failed and on what path; logs it
/// where it happened (a nested failure was logged deeper).
func factoryFailed(_ error: any Error, making service: ServiceIdentity, logger: (any ServiceLogger)?)
    -> ServiceObtainError {
    let failure = (error as? ServiceObtainError)?.nested(in: service) ?? ServiceObtainError(service: service, error: error)
    if !failure.isNested { logger?.log(.failed(operation: "making \(service)", error: failure.error)) }
    return failure
}
