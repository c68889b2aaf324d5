import Foundation
import HostKit
import Logging
import PluginAPI
import PluginHostLifecycle
import PluginHostLogging
import ServiceLifecycle
import Testing

/// Collects what a `Logger` writes, for one test.
final class LogRecords: @unchecked Sendable {
    // @unchecked: `records` is only touched under `lock`.
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lock = NSLock()
    private var records: [Record] = []

    var all: [Record] { lock.withLock { records } }

    func append(_ record: Record) {
        lock.withLock { records.append(record) }
    }

    /// A logger that writes here, at every level.
    func logger(_ label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(records: self) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let records: LogRecords
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            records.append(Record(level: event.level, message: "\(event.message)",
                                  metadata: (event.metadata ?? [:]).mapValues { "\($0)" }))
        }
    }
}

/// The sample plugins built beside this test bundle (as dependencies of the test target).
enum Samples {
    static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    static func file(_ name: String) -> PluginSource { .file("\(directory)/lib\(name).so") }
}

/// A service that runs until the group shuts down gracefully: another service beside the plugin host.
struct Idle: Service {
    func run() async throws {
        try? await gracefulShutdown()
    }
}

@Suite struct IntegrationTests {
    /// Registrations, gets and failures reach swift-log with structured metadata.
    @Test func theServiceLoggerWritesStructuredMetadata() throws {
        let records = LogRecords()
        let locator = ServiceLocator(logger: SwiftLogServiceLogger(records.logger()))
        let key = ServiceLocatorEasyKey<String>(name: "greeting")
        try locator.addLazyService(key: key) { "hello" }
        _ = try locator.tryService(key: key)
        _ = try? locator.tryService(key: ServiceLocatorEasyKey<Int>(name: "greeting"))
        let registered = try #require(records.all.first { $0.message == "slot registered" })
        #expect(registered.level == .debug)
        #expect(registered.metadata == ["key": "greeting", "type": "Swift.String", "mode": "lazy", "plugin": "-"])
        #expect(records.all.contains { $0.message == "service made" && $0.metadata["mode"] == "lazy" })
        let failure = try #require(records.all.first { $0.level == .error })
        #expect(failure.metadata["error"]?.contains("key 'greeting' holds Swift.String") == true, "\(failure)")
    }

    /// In a ServiceGroup beside another service: the plugins load and start when the group runs (the
    /// bad file logged and skipped), and a graceful shutdown shuts them down in reverse start order,
    /// each logged; the other service stops too and the group returns.
    @Test(.timeLimit(.minutes(2)))
    func aServiceGroupRunsThePluginsAndShutsThemDownInReverseOrder() async throws {
        let records = LogRecords()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("integrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("libBroken.so")
        try Data("not a library".utf8).write(to: bad)
        setenv("SAMPLE_JOURNAL", folder.appendingPathComponent("journal.log").path, 1)

        let host = PluginHost()
        let plugins = PluginHostService(host: host, sources: [Samples.file("NotesPlugin"), Samples.file("GreeterPlugin"),
                                                              Samples.file("ClockPlugin"), .file(bad.path)],
                                        logger: records.logger("plugins"))
        let group = ServiceGroup(services: [plugins, Idle()], logger: records.logger("group"))
        async let running: Void = group.run()

        let report = await plugins.loaded()
        #expect(Set(report.loadedNames) == ["notes", "greeter", "clock"], "\(report.problems)")
        #expect(report.problems.count == 1)
        #expect(records.all.contains { $0.level == .error && $0.message == "plugin refused" && $0.metadata["file"] == bad.path })
        #expect(try host.locator.tryService(key: ServiceLocatorEasyKey<String>(name: "sample.request-id")).hasPrefix("req-"))
        let started = host.startedPlugins

        await group.triggerGracefulShutdown()
        try await running
        let shutDown = records.all.filter { $0.message == "plugin shut down" }.compactMap { $0.metadata["plugin"] }
        #expect(shutDown == Array(started.reversed()), "\(records.all.map(\.message))")
        #expect(records.all.contains { $0.message == "service closed" && $0.metadata["key"] == "sample.journal" })
        #expect(host.startedPlugins.isEmpty)
    }
}

extension LoadReport {
    var loadedNames: [String] { loaded.compactMap { $0.metadata?.name } }
}
