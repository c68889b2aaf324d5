import Foundation
import HostKit
import PluginAPI
import Synchronization
import TestSupport
import Testing

/// A plugin's own log (`services.log`): each line reaches the host's `PluginLogs` with the plugin's
/// name and version, at the level the operator set for that plugin: a real plugin that writes while
/// it registers, in a factory, in its start hook and in its shutdown hook.
@Suite struct PluginLogTests {
    /// The lines a host's plugins wrote.
    final class Lines: Sendable {
        private let lines = Mutex<[PluginLogLine]>([])
        var all: [PluginLogLine] { lines.withLock { $0 } }
        func append(_ line: PluginLogLine) { lines.withLock { $0.append(line) } }
    }

    @Test func eachLineCarriesThePluginsNameAndVersionAtItsLevelOrAbove() throws {
        let lines = Lines()
        let logs = PluginLogs(level: .info, write: { lines.append($0) })
        let host = PluginHost(logs: logs)
        let report = host.load([.file(BuiltPlugins.path("FixtureLogger"))])
        #expect(report.problems.isEmpty, "\(report.text)")
        _ = host.locator.getService(key: ServiceLocatorEasyKey<String>(name: "fixture.logger.said"))
        host.shutdown()
        let written = lines.all
        #expect(written.allSatisfy { $0.plugin == "fixture-logger" && $0.version == "1.2.3" })
        #expect(written.map(\.message) == ["registering", "at info", "at notice", "at warning", "at error", "at critical",
                                           "hostile \u{1B}[2J\nsecond line", "shutting down"])
        #expect(written.first?.metadata == ["keys": "1"])
        #expect(written.first?.file == "FixtureLogger/FixtureLogger.swift", "\(String(describing: written.first))")
        // Printed, the plugin's text is escaped: one line, no escape sequence.
        let hostile = try #require(written.first { $0.message.hasPrefix("hostile") })
        #expect(hostile.description == "[fixture-logger 1.2.3] warning: hostile \\u{1B}[2J\\nsecond line \"key\\u{07}\"=\"value\\r\"",
                "\(hostile.description)")
    }

    /// The level is the operator's, per plugin, and read at each line: lowered while the plugin runs,
    /// its debug lines (the factory's, made after the change) are written.
    @Test func theLevelIsSetPerPluginAndMayChangeWhileItRuns() throws {
        let lines = Lines()
        let logs = PluginLogs(level: .info, levels: ["fixture-logger": .error], write: { lines.append($0) })
        let host = PluginHost(logs: logs)
        defer { host.shutdown() }
        #expect(host.load([.file(BuiltPlugins.path("FixtureLogger"))]).problems.isEmpty)
        #expect(lines.all.map(\.level) == [.error, .critical])
        logs.setLevel(.trace, of: "fixture-logger")
        _ = host.locator.getService(key: ServiceLocatorEasyKey<String>(name: "fixture.logger.said"))
        #expect(lines.all.last?.message == "making the service" && lines.all.last?.level == .debug)
        logs.setLevel(nil, of: "fixture-logger")
        #expect(logs.level(of: "fixture-logger") == .info)
    }

    /// A host without logs lends logs that write nowhere; nothing else changes.
    @Test func withoutLogsAPluginsLogWritesNowhere() throws {
        let host = PluginHost()
        defer { host.shutdown() }
        #expect(host.load([.file(BuiltPlugins.path("FixtureLogger"))]).problems.isEmpty)
        #expect(host.locator.log.level == .critical)
    }
}
