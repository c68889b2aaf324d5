import Foundation
import HostKit
import PluginAPI
import PluginHostLifecycle
import ServiceLifecycle
import Testing

/// The reports an `onReload` callback was given, in order.
final class HeardReports: @unchecked Sendable {
    // @unchecked: `reports` is only touched under `lock`.
    private let lock = NSLock()
    private var reports: [ReloadReport] = []

    var all: [ReloadReport] { lock.withLock { reports } }

    func append(_ report: ReloadReport) {
        lock.withLock { reports.append(report) }
    }

    /// The `count`th report, once there is one.
    func report(_ count: Int, atMost limit: Duration = .seconds(30)) async throws -> ReloadReport {
        let deadline = ContinuousClock.now + limit
        while all.count < count {
            try #require(ContinuousClock.now < deadline, "\(all.count) reloads heard, waiting for \(count)")
            try await Task.sleep(for: .milliseconds(20))
        }
        return all[count - 1]
    }
}

/// `PluginHostService` reloading a running group's plugins: the root package's fixtures
/// FixtureVersionOne and FixtureVersionTwo, one plugin (`fixture-versioned`) in two versions, deployed
/// over one path as an operator would.
@Suite struct ReloadServiceTests {
    static let versioned = ServiceLocatorEasyKey<String>(name: "fixture.versioned")

    /// `reload()` and then a SIGHUP raised in this process each upgrade the plugin while the group
    /// runs; `onReload` hears both reports, the log has both; the group still shuts down gracefully
    /// (the signal loop ends with it).
    @Test(.timeLimit(.minutes(2)))
    func aServiceInAGroupIsUpgradedByReloadAndBySighupAndHearsEachReport() async throws {
        let records = LogRecords()
        let heard = HeardReports()
        // Only this user may write the folder: the host refuses plugins others could change.
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("integrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("libversioned.so").path
        try deploy("FixtureVersionOne", to: file)

        // The control the versioned fixture requires (it reports its hooks there); this test asks nothing of it.
        let base = ServiceLocator()
        try base.addService(key: ServiceLocatorEasyKey<@Sendable (String) -> String>(name: "fixture.lifecycle"), service: { _ in "ok" })
        let host = try PluginHost(base: base)
        let plugins = PluginHostService(host: host, sources: [.directory(folder.path)], logger: records.logger("plugins")) {
            heard.append($0)
        }
        let group = ServiceGroup(services: [plugins, Idle()], logger: records.logger("group"))
        async let running: Void = group.run()
        #expect(await plugins.loaded().loadedNames == ["fixture-versioned"])
        #expect(try host.locator.tryService(key: Self.versioned) == "1")

        try deploy("FixtureVersionTwo", to: file)
        let called = await plugins.reload()
        #expect(called.entries.map(\.summary) == ["upgraded fixture-versioned 1.0.0 -> 2.0.0 (\(file))"], "\(called.text)")
        #expect(try host.locator.tryService(key: Self.versioned) == "2")
        #expect(heard.all.map(\.text) == [called.text])

        // (Trapped since before the load: the signal does not end the process.)
        try deploy("FixtureVersionOne", to: file)
        kill(getpid(), SIGHUP)
        let signalled = try await heard.report(2)
        #expect(signalled.entries.map(\.summary) == ["upgraded fixture-versioned 2.0.0 -> 1.0.0 (\(file))"], "\(signalled.text)")
        #expect(try host.locator.tryService(key: Self.versioned) == "1")
        let upgrades = records.all.filter { $0.message == "plugin upgraded" }
        #expect(upgrades.map { "\($0.metadata["previousVersion"] ?? "") -> \($0.metadata["version"] ?? "")" }
            == ["1.0.0 -> 2.0.0", "2.0.0 -> 1.0.0"])
        #expect(records.all.filter { $0.message == "plugins reloaded" }.count == 2)

        await group.triggerGracefulShutdown()
        try await running
        #expect(host.startedPlugins.isEmpty)
        #expect(heard.all.count == 2)
    }

    /// Copies the built `product` to a new file beside `path`, then renames it over `path` (a new
    /// file, as `install` or `mv` deploys one: the file loaded is never written into).
    private func deploy(_ product: String, to path: String) throws {
        let staged = "\(path).\(UUID().uuidString).new"
        try FileManager.default.copyItem(atPath: "\(Samples.directory)/lib\(product).so", toPath: staged)
        guard rename(staged, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
