/// One thing worth logging.
public enum ServiceLogEvent: Sendable, CustomStringConvertible {
    /// A slot was added (or replaced).
    case registered(ServiceSlotInfo)
    /// A slot was removed.
    case removed(key: String)
    /// A module's slots were all added.
    case moduleAdded(module: String, keys: [String])
    /// The locator became read-only.
    case madeReadOnly(slotCount: Int)
    /// A singleton (or, for `many`, one instance) was made by a factory.
    case made(ServiceIdentity, mode: ServiceFactoryMode)
    /// A call failed; `error` says why.
    case failed(operation: String, error: any Error)

    public var description: String {
        switch self {
        case let .registered(info): "registered \(info)"
        case let .removed(key): "removed '\(key)'"
        case let .moduleAdded(module, keys): "module '\(module)' added \(keys.count) slot(s)"
        case let .madeReadOnly(count): "read-only with \(count) slot(s)"
        case let .made(service, mode): "made \(service) (\(mode))"
        case let .failed(operation, error): "\(operation) failed: \(error)"
        }
    }
}
