import FixtureRemoteContracts
import Foundation
import Glibc
import HostKit
@_spi(HostKit) import PluginAPI
import PluginActors
import TestSupport
import Testing

/// Reloads of a plugin placed in a process of its own: the echo plugin (FixtureEchoPlugin 1.0.0,
/// FixtureEchoPluginTwo 2.0.0) in a folder, upgraded and withdrawn as an operator would. Each host's
/// children carry a mark of their own in their environment, so that a test finds every process it
/// started (and only those) among the machine's, and sees that none is left running.
@Suite struct OwnProcessReloadTests {
    let echo = "libecho.so"

    /// A host that places `echo` (and `others`) in processes of their own, each child marked with
    /// `mark`; `folder` holds FixtureEchoPlugin as `echo`, beside the contract library it links, and
    /// the host loads `echo` by its path (or, `whole`, the folder).
    ///
    /// The load runs on a thread of its own, and start hooks may take minutes: a plugin's process
    /// that calls a service of the host (the relay's start) is answered by a task of this process,
    /// which waits for a thread of Swift concurrency, and in the whole suite other tests hold them.
    func host(in folder: TemporaryFolder, mark: String, others: Set<String> = [], whole: Bool = false,
              restarts: PluginProcesses.RestartPolicy? = nil) async throws -> PluginHost {
        try folder.install("FixtureRemoteContracts", as: "libFixtureRemoteContracts.so")
        try folder.install("FixtureEchoPlugin", as: echo)
        var processes = restarts.map { OwnProcessTests.processes(restarts: $0) } ?? OwnProcessTests.processes()
        processes.files = others.union([echo])
        processes.environment[Self.markVariable] = mark
        let host = PluginHost(startTimeout: .seconds(300), processes: processes) { _ in }
        let source: PluginSource = whole ? .directory(folder.path) : .file(folder.file(echo))
        let report = await onAThreadOfItsOwn { host.load([source]) }
        #expect(report.problems.isEmpty, "\(report.problems)")
        return host
    }

    @Test func anUpgradeServesTheNewVersionFromANewProcessAndStopsTheOldOne() async throws {
        let folder = try TemporaryFolder(), mark = UUID().uuidString
        let host = try await host(in: folder, mark: mark)
        defer { host.shutdown() }
        let old = try host.locator.tryService(key: RemoteKeys.echo)
        let oldPID = try await old.pid()
        #expect(Self.processes(marked: mark) == [oldPID])
        try folder.install("FixtureEchoPluginTwo", as: echo)
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.map(\.summary) == ["upgraded fixture-echo 1.0.0 -> 2.0.0 (\(folder.file(echo)))"], "\(report.text)")
        #expect(!report.hasProblems, "\(report.text)")
        // The slot hands out a new proxy, reaching the new process.
        let new = try host.locator.tryService(key: RemoteKeys.echo)
        #expect(new.id != old.id)
        let newPID = try await new.pid()
        #expect(newPID != oldPID)
        #expect(try await new.echo(EchoMessage(text: "two", number: 2, tags: [])).text == "two")
        // The old process is gone (reaped, not a zombie); the new one is the only one left.
        #expect(try await poll(atMost: .seconds(30)) { !Self.exists(oldPID) }, "process \(oldPID) is still there")
        #expect(Self.processes(marked: mark) == [newPID])
        await #expect(throws: PluginActorError.self) { try await old.ping() }
    }

    /// A call the old process is serving when the upgrade swaps in the new one returns its answer:
    /// the old process is stopped only once it has none left.
    @Test func anUpgradeLetsTheOldProcessFinishTheCallsItHas() async throws {
        let folder = try TemporaryFolder(), mark = UUID().uuidString
        let host = try await host(in: folder, mark: mark)
        defer { host.shutdown() }
        let old = try host.locator.tryService(key: RemoteKeys.echo)
        let oldPID = try await old.pid()
        let idle = try #require(Self.cpuTicks(of: oldPID))
        let call = Task { try await old.spin(seconds: 2) }
        // The call has reached the old process once that spends CPU time (idle, it spends next to
        // none; a thread merely runnable was no proof, and the reload came first).
        #expect(try await poll(atMost: .seconds(30)) { (Self.cpuTicks(of: oldPID) ?? 0) >= idle + 5 })
        try folder.install("FixtureEchoPluginTwo", as: echo)
        let report = await onAThreadOfItsOwn { host.reload(hookTimeout: .seconds(60)) }
        #expect(report.entries.map(\.action) == [.upgraded], "\(report.text)")
        #expect(!report.hasProblems, "\(report.text)")
        await #expect(throws: Never.self) { try await call.value }
        #expect(try await poll(atMost: .seconds(30)) { !Self.exists(oldPID) }, "process \(oldPID) is still there")
    }

    @Test func aWithdrawnPluginsProcessIsStopped() async throws {
        let folder = try TemporaryFolder(), mark = UUID().uuidString
        let host = try await host(in: folder, mark: mark)
        defer { host.shutdown() }
        let old = try host.locator.tryService(key: RemoteKeys.echo)
        let oldPID = try await old.pid()
        try FileManager.default.removeItem(atPath: folder.file(echo))
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.map(\.action) == [.withdrawn], "\(report.text)")
        #expect(host.locator.slotInfo(forKey: "fixture.echo") == nil)
        #expect(try await poll(atMost: .seconds(30)) { !Self.exists(oldPID) }, "process \(oldPID) is still there")
        #expect(Self.processes(marked: mark).isEmpty)
        await #expect(throws: PluginActorError.self) { try await old.ping() }
    }

    /// A new file that holds a plugin the host serves from another, unchanged file is refused (two
    /// files, one plugin); the process started to open it is stopped with it.
    @Test func aSecondFileOfAServedPluginIsRefusedAndItsProcessStopped() async throws {
        let folder = try TemporaryFolder(), mark = UUID().uuidString
        let host = try await host(in: folder, mark: mark, others: ["libecho-two.so"], whole: true)
        defer { host.shutdown() }
        let pid = try await host.locator.tryService(key: RemoteKeys.echo).pid()
        try folder.install("FixtureEchoPluginTwo", as: "libecho-two.so")
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.filter { $0.plugin == "fixture-echo" }.map(\.action) == [.kept], "\(report.text)")
        #expect(try await poll(atMost: .seconds(30)) { Self.processes(marked: mark) == [pid] },
                "processes left: \(Self.processes(marked: mark)), served by \(pid)")
    }

    /// A plugin of a process of its own that requires an upgraded one (the relay, which requires the
    /// echo service) is restarted in a new process, started against the new version: its old process
    /// ran the start hook of the one instance it holds, and keeps the old version's service.
    @Test func aPluginOfItsOwnProcessThatRequiresAnUpgradedOneIsRestartedInANewProcess() async throws {
        let folder = try TemporaryFolder(), mark = UUID().uuidString, relay = "librelay.so"
        try folder.install("FixtureEchoRelayPlugin", as: relay)
        let host = try await host(in: folder, mark: mark, others: [relay], whole: true)
        defer { host.shutdown() }
        let relayKey = DistributedServiceEasyKey<any Echo, $Echo<PluginActorSystem>>(name: "fixture.echo-relay")
        let message = EchoMessage(text: "via", number: 0, tags: [])
        let oldEchoPID = try await host.locator.tryService(key: RemoteKeys.echo).pid()
        let oldRelay = try host.locator.tryService(key: relayKey)
        let oldRelayPID = try await oldRelay.pid()
        #expect(try await oldRelay.echo(message).number == Int(oldEchoPID))
        try folder.install("FixtureEchoPluginTwo", as: echo)
        let report = await onAThreadOfItsOwn { host.reload() }
        #expect(report.entries.map(\.summary) == ["upgraded fixture-echo 1.0.0 -> 2.0.0 (\(folder.file(echo)))",
                                                  "restarted fixture-echo-relay 1.0.0 (\(folder.file(relay)))"], "\(report.text)")
        #expect(!report.hasProblems, "\(report.text)")
        let newEchoPID = try await host.locator.tryService(key: RemoteKeys.echo).pid()
        let newRelay = try host.locator.tryService(key: relayKey)
        let newRelayPID = try await newRelay.pid()
        #expect(newRelayPID != oldRelayPID)
        #expect(try await newRelay.echo(message).number == Int(newEchoPID))
        // Both old processes stopped and reaped: the new ones are all that is left.
        #expect(try await poll(atMost: .seconds(30)) { Self.processes(marked: mark) == [newEchoPID, newRelayPID] },
                "processes left: \(Self.processes(marked: mark)), serving: \([newEchoPID, newRelayPID])")
    }

    // MARK: Processes

    /// The variable whose value marks the children of one test's host.
    static let markVariable = "HOSTKIT_TEST_PROCESS_MARK"

    /// The processes alive now whose environment holds `mark` (a zombie's environment cannot be read).
    static func processes(marked mark: String) -> Set<Int32> {
        let entry = Array("\(markVariable)=\(mark)".utf8)
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return Set(pids.filter { pid in
            // A zygote's children show its environment; it is no plugin's process itself.
            guard !PluginProcessTable.isZygote(pid),
                  let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environment.split(separator: 0).contains { Array($0) == entry }
        })
    }

    /// Whether `pid` is a process: alive, or ended and not reaped (a zombie, which is a leak too).
    static func exists(_ pid: Int32) -> Bool {
        state(of: "/proc/\(pid)/stat") != nil
    }

    /// The CPU time `pid` has spent, user and system, in clock ticks (fields 14 and 15 of its `stat`).
    static func cpuTicks(of pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the command: the state (field 3) first, so utime (14) and stime (15) at 11 and 12.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The state letter of a `stat` file of /proc (after the command name in parentheses), if it is there.
    private static func state(of file: String) -> Character? {
        guard let stat = try? String(contentsOfFile: file, encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[close...].dropFirst().first { $0 != " " }
    }
}
