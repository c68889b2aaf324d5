import Logging
import PluginAPI

/// Writes what a ``ServiceLocator`` does to a swift-log `Logger`, with structured metadata (`key`,
/// `type`, `mode`, `plugin`) instead of text to parse: registrations and removals at `debug`, made
/// services at `trace`, failures at `error`.
///
/// ```swift
/// let locator = ServiceLocator(logger: SwiftLogServiceLogger(Logger(label: "services")))
/// ```
public struct SwiftLogServiceLogger: ServiceLogger {
    /// The logger written to.
    public let logger: Logger

    /// A service logger that writes to `logger`.
    public init(_ logger: Logger) {
        self.logger = logger
    }

    public func log(_ event: ServiceLogEvent) {
        switch event {
        case let .registered(slot):
            logger.debug("slot registered", metadata: [
                "key": "\(slot.key)", "type": "\(slot.serviceType)", "mode": "\(slot.mode.rawValue)",
                "plugin": "\(slot.origin ?? "-")",
            ])
        case let .removed(key):
            logger.debug("slot removed", metadata: ["key": "\(key)"])
        case let .moduleAdded(module, keys):
            logger.debug("module added", metadata: ["plugin": "\(module)", "slots": "\(keys.count)"])
        case let .madeReadOnly(count):
            logger.debug("locator read-only", metadata: ["slots": "\(count)"])
        case let .made(service, mode):
            logger.trace("service made", metadata: ["key": "\(service.key ?? "-")", "type": "\(service.typeName)",
                                                    "mode": "\(mode.rawValue)"])
        case let .failed(operation, error):
            logger.error("\(operation) failed", metadata: ["error": "\(error)"])
        @unknown default:
            // An event of a newer PluginAPI: its description says what happened.
            logger.debug("\(event.description)")
        }
    }
}
