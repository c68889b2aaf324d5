import PluginAPI
import Synchronization

/// `fixture-logger` 1.2.3: writes to its own log (what it is lent, `services.log`) while it registers,
/// in its service's factory, at every level in its start hook (one line of hostile text among them),
/// and in its shutdown hook through the log it kept from its start.
struct LoggerPlugin: Plugin {
    static let said = ServiceLocatorEasyKey<String>(name: "fixture.logger.said")
    static let metadata = PluginMetadata(name: "fixture-logger", version: "1.2.3", provides: [said])

    /// The log the start hook got, for the shutdown hook, which gets no resolver.
    private let kept = KeptLog()

    func registerServices(in registrar: ModuleRegistrar) throws {
        let log = registrar.services.log
        log.info("registering", metadata: ["keys": "1"])
        try registrar.addLazyService(key: Self.said) {
            log.debug("making the service")
            return "said"
        }
    }

    func start(services: ServiceResolver) async throws {
        for level in PluginLog.Level.allCases {
            services.log.log(level, "at \(level.rawValue)")
        }
        services.log.warning("hostile \u{1B}[2J\nsecond line", metadata: ["key\u{7}": "value\r"])
        kept.log.withLock { $0 = services.log }
    }

    func shutdown() async throws {
        kept.log.withLock { $0 }?.notice("shutting down")
    }
}

final class KeptLog: Sendable {
    let log = Mutex<PluginLog?>(nil)
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LoggerPlugin.self) }
