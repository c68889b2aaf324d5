@_spi(HostKit) import PluginAPI
import Synchronization
import Testing

/// `PluginLog` on its own: what reaches its handler, and what is never made.
@Suite struct PluginLogLevelTests {
    final class Handler: PluginLogHandler {
        let threshold: PluginLog.Level
        let lines = Mutex<[(PluginLog.Level, String, [String: String])]>([])
        init(_ threshold: PluginLog.Level) { self.threshold = threshold }
        func level(of plugin: String) -> PluginLog.Level { plugin == "p" ? threshold : .critical }
        func log(plugin: String, version: String, level: PluginLog.Level, message: String, metadata: [String: String],
                 file: String, line: UInt) {
            lines.withLock { $0.append((level, "\(plugin) \(version) \(message)", metadata)) }
        }
    }

    @Test func eachLevelAtOrAboveTheThresholdIsWrittenAndNoMessageBelowItIsMade() {
        let handler = Handler(.notice)
        let log = PluginLog(plugin: "p", version: "1.0.0", handler: handler)
        let made = Mutex(0)
        func message(_ text: String) -> String {
            made.withLock { $0 += 1 }
            return text
        }
        log.trace(message("t"))
        log.debug(message("d"))
        log.info(message("i"))
        log.notice(message("n"), metadata: ["k": "v"])
        log.warning(message("w"))
        log.error(message("e"))
        log.critical(message("c"))
        let lines = handler.lines.withLock { $0 }
        #expect(lines.map(\.0) == [.notice, .warning, .error, .critical])
        #expect(lines.map(\.1) == ["p 1.0.0 n", "p 1.0.0 w", "p 1.0.0 e", "p 1.0.0 c"])
        #expect(lines.first?.2 == ["k": "v"])
        #expect(made.withLock { $0 } == 4, "a message below the level was made")
        #expect(log.level == .notice)
        #expect(PluginLog.Level.allCases.sorted() == PluginLog.Level.allCases)
        #expect(PluginLog.Level.trace < .critical && !(PluginLog.Level.error < .warning))
    }

    /// The log of a locator of one's own, which no host lent, writes nowhere.
    @Test func aLocatorsOwnLogWritesNowhere() {
        let locator = ServiceLocator()
        #expect(locator.log.level == .critical)
        locator.log.critical("nowhere")
    }
}
