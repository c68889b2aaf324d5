import HostKit
import Logging
import PluginHostLogging
import Testing

/// `PluginLogs.swiftLog`: a real plugin's own log lines reach a swift-log `Logger` at their levels,
/// each with the plugin's name and version as metadata.
@Suite struct PluginLogTests {
    @Test func aPluginsLinesReachSwiftLogWithItsNameAndVersion() throws {
        let records = LogRecords()
        let host = PluginHost(logs: PluginLogs.swiftLog(records.logger(), level: .notice, levels: ["someone-else": .trace]))
        let report = host.load([Samples.file("FixtureLogger")])
        #expect(report.problems.isEmpty, "\(report.text)")
        host.shutdown()
        let lines = records.all
        // The plugin's texts escaped: a stream handler prints them as they come.
        #expect(lines.map(\.message) == ["at notice", "at warning", "at error", "at critical", "hostile \\u{1B}[2J\\nsecond line",
                                         "shutting down"])
        #expect(lines.map(\.level) == [.notice, .warning, .error, .critical, .warning, .notice])
        #expect(lines.allSatisfy { $0.metadata["plugin"] == "fixture-logger" && $0.metadata["version"] == "1.2.3" })
        #expect(lines[4].metadata["key\\u{07}"] == "value\\r", "\(lines[4].metadata)")
    }
}
