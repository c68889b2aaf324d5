import FixtureRemoteContracts
import Foundation
import Glibc
@testable import HostKit
import PluginActors
import TestSupport
import Testing

/// The host's zygote (``PluginProcesses/zygote``): the plugins' processes are forked from it, each
/// in its own sandbox; one that cannot serve is given up on, said once, and each process started
/// on its own; it never outlives its host's shutdown.
@Suite(.disabled(if: underThreadSanitizer, "ThreadSanitizer starts a thread in each forked child: no zygote serves (ZygoteRefusalTests)"))
struct OwnProcessZygoteTests {
    /// The parent of `pid` (field 4 of its stat).
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// Whether `pid` runs (a zombie does not: an orphan is reaped by whoever adopted it).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    /// This process's zygotes.
    static func zygotes() -> [Int32] {
        PluginProcessTable.children(of: getpid()).filter(PluginProcessTable.isZygote)
    }

    @Test func aPluginsProcessIsForkedFromTheHostsZygoteInItsOwnSandboxAndSoIsItsRestart() async throws {
        let (host, reported) = try OwnProcessTests.host(zygoteSettled: true)
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let first = try await echo.pid()
        let zygote = try #require(Self.parent(of: first))
        #expect(zygote != getpid() && PluginProcessTable.isZygote(zygote) && Self.parent(of: zygote) == getpid())
        let status = try String(contentsOfFile: "/proc/\(first)/status", encoding: .utf8)
        #expect(status.contains("NoNewPrivs:\t1") && status.contains("Seccomp:\t2"), "\(status)")
        // The zygote itself runs no plugin, and entered no sandbox: it forks before each child enters its own.
        let own = try String(contentsOfFile: "/proc/\(zygote)/status", encoding: .utf8)
        #expect(own.contains("Threads:\t1"), "\(own)")
        _ = try? await echo.crash()
        let second = try await echo.pid()
        #expect(second != first && Self.parent(of: second) == zygote)
        #expect(!reported.withLock { $0 }.contains { $0.contains("zygote") }, "\(reported.withLock { $0 })")
    }

    @Test func aZygoteThatCannotServeIsSaidOnceAndEachProcessIsStartedOnItsOwn() async throws {
        let program = try WrappedChildProgram(behaviour: #"if [ -n "$SWIFT_PLUGIN_ZYGOTE" ]; then echo refusing >&2; exit 3; fi"#)
        defer { program.killLeftovers() }
        var settings = OwnProcessTests.processes()
        program.install(in: &settings)
        let (host, reported) = try OwnProcessTests.host(settings)
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let first = try await echo.pid()
        #expect(Self.parent(of: first) == getpid())
        _ = try? await echo.crash()
        let second = try await echo.pid()
        #expect(second != first && Self.parent(of: second) == getpid())
        host.zygote.waitUntilSettled()
        let said = reported.withLock { $0 }.filter { $0.contains("no zygote for the plugins' processes") }
        #expect(said.count == 1 && said.first?.contains("exited with status 3") == true, "\(reported.withLock { $0 })")
    }

    @Test func aKilledZygoteTakesItsProcessesAndThePluginIsServedAgain() async throws {
        let (host, _) = try OwnProcessTests.host(zygoteSettled: true)
        defer { host.shutdown() }
        let echo = try host.locator.tryService(key: RemoteKeys.echo)
        let first = try await echo.pid()
        let zygote = try #require(Self.parent(of: first))
        #expect(kill(zygote, SIGKILL) == 0)
        // Its process died with it (PR_SET_PDEATHSIG); the plugin's restart finds a process again.
        try await waitFor(atMost: .seconds(60), { !Self.isAlive(first) }, orSay: "the zygote's child outlived it")
        try await waitFor(atMost: .seconds(60), { (try? await echo.pid()).map { $0 != first } ?? false },
                          orSay: "the plugin was not served again")
    }

    @Test func theShutdownLeavesNoZygote() async throws {
        let before = Set(Self.zygotes())
        let (host, _) = try OwnProcessTests.host(zygoteSettled: true)
        let pid = try await host.locator.tryService(key: RemoteKeys.echo).pid()
        let zygote = try #require(Self.parent(of: pid))
        #expect(!before.contains(zygote))
        host.shutdown()
        // It ends after its last child: gone and reaped.
        try await waitFor(atMost: .seconds(60), { kill(zygote, 0) != 0 && errno == ESRCH }, orSay: "zygote \(zygote) is left")
    }
}
