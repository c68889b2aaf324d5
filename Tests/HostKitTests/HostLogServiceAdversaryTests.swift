import Dispatch
import Distributed
import Glibc
@testable import HostKit
import PluginAPI
@_spi(HostKit) import PluginActors
import TestSupport
import Testing

/// A hostile process of a plugin writing to the host's log (``HostLogService``) with frames of its
/// own choosing, over a socket pair: two actor systems stand for the host and the child.
@Suite struct HostLogServiceAdversaryTests {
    /// The host serves `plugin` 1.0.0's log under `__log`; the child writes to it what it likes.
    struct HostAndChild {
        let systems: HostAndChildSystems

        /// The child's calls give up after `callTimeout`.
        init(_ logs: PluginLogs, callTimeout: Duration = .seconds(300)) throws {
            systems = try HostAndChildSystems(serving: HostLogService.name, callTimeout: callTimeout) { host in
                (HostLogService(actorSystem: host, plugin: "real", version: "1.0.0", handler: logs,
                                writer: DispatchQueue(label: "plugin log")), HostLogService.self)
            }
        }

        /// The child's proxy of the host's log.
        func log() throws -> HostLogService {
            try HostLogService.resolve(id: PluginActorID(peer: "host", name: HostLogService.name), using: systems.child)
        }
    }

    static func line(_ level: String, _ message: String, metadata: [String: String] = [:]) -> ChildLogLine {
        ChildLogLine(level: level, message: message, metadata: metadata, file: "Forged/File.swift", line: 7)
    }

    /// Writes a critical line `mark` and waits until it reached `lines`: the host hands a child's
    /// lines to its handler on a queue of its own, in order, so every line written before it has
    /// been handled (or dropped) by then. Returns the lines before it.
    static func drained(_ log: HostLogService, _ lines: Collected<[PluginLogLine]>, mark: String) async throws -> [PluginLogLine] {
        try await log.write(line("critical", mark))
        #expect(try await poll(atMost: .seconds(60)) { lines.withLock { $0.contains { $0.message == mark } } }, "\(mark)")
        return lines.withLock { $0 }.filter { !$0.message.hasPrefix("mark ") }
    }

    /// Whatever level, name or text the child sends, a line reaches the host's log only at a level
    /// of `PluginLog.Level`'s at or above the plugin's, under the name and version the host read.
    @Test func aChildsForgedLinesCarryTheHostsNameAtTheHostsLevel() async throws {
        let lines = Collected<[PluginLogLine]>([])
        let logs = PluginLogs(level: .warning) { line in lines.withLock { $0.append(line) } }
        let pair = try HostAndChild(logs)
        let log = try pair.log()
        for level in ["info", "trace", "INFO", "Warning", "", "warning\u{0}", "fatal", "9"] {
            try await log.write(Self.line(level, "dropped at \(level)"))
        }
        try await log.write(Self.line("error", "[other 9.9.9] critical: forged\nhost: [other 9.9.9] critical: again",
                                      metadata: ["plugin": "other", "version": "9.9.9"]))
        let written = try await Self.drained(log, lines, mark: "mark 1")
        #expect(written.count == 1, "\(written)")
        let line = try #require(written.first)
        #expect(line.plugin == "real" && line.version == "1.0.0" && line.level == .error)
        #expect(line.description.hasPrefix("[real 1.0.0] error: ") && !line.description.contains("\n"), "\(line)")

        // The operator raises the level: the child's next line below it is dropped by the host.
        logs.setLevel(.critical, of: "real")
        try await log.write(Self.line("error", "after the level was raised"))
        #expect(try await Self.drained(log, lines, mark: "mark 2").count == 1)
    }

    /// A line of megabytes (a frame may hold 64 MiB) reaches the handler cut: its message to 16 KiB,
    /// never inside a character, saying how much went; its metadata to 64 fields of at most 1 KiB.
    @Test func aHugeLineIsCutBeforeItReachesTheHandler() async throws {
        let lines = Collected<[PluginLogLine]>([])
        let pair = try HostAndChild(PluginLogs(level: .trace) { line in lines.withLock { $0.append(line) } })
        let log = try pair.log()
        let message = String(repeating: "é", count: 512 * 1024)  // 1 MiB of two-byte characters
        let metadata = Dictionary(uniqueKeysWithValues: (0..<200).map { ("key \($0)", String(repeating: "v", count: 5000)) })
        try await log.write(Self.line("info", message, metadata: metadata))
        let line = try #require(try await Self.drained(log, lines, mark: "mark 1").first)
        let cut = 1024 * 1024 - HostLogService.messageLimit
        #expect(line.message.hasPrefix(String(repeating: "é", count: HostLogService.messageLimit / 2 - 1)))
        #expect(line.message.hasSuffix("é… (\(cut + 2) bytes cut)"), "\(line.message.suffix(40))")
        #expect(line.metadata.count == HostLogService.fieldCount)
        #expect(line.metadata.values.allSatisfy { $0.utf8.count < HostLogService.fieldLimit + 40 })
    }

    /// Many threads of the child writing at once: every line arrives once, whole, none mixed with another.
    @Test func linesFromManyTasksAtOnceEachArriveOnce() async throws {
        let lines = Collected<[PluginLogLine]>([])
        let pair = try HostAndChild(PluginLogs(level: .trace) { line in lines.withLock { $0.append(line) } })
        let log = try pair.log()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<64 {
                group.addTask { try await log.write(Self.line("info", "\(writer)", metadata: ["writer": "\(writer)"])) }
            }
            try await group.waitForAll()
        }
        let written = try await Self.drained(log, lines, mark: "mark 1")
        #expect(written.map(\.message).sorted() == (0..<64).map(String.init).sorted())
        #expect(written.allSatisfy { $0.metadata == ["writer": $0.message] && $0.plugin == "real" })
    }

    /// The host's handler blocks (a stderr nobody reads) while the child writes on, each line given
    /// up at its call's timeout, as the child's forwarder does (here 64 at a time, to be quick): the
    /// lines are lost, but the child is not cut off as a flood of calls once the handler moves again.
    /// The time limit is a hang bound: the batches take some 10 s (each line given up at 2 s), and the
    /// pool the test's tasks run on may be busy for a minute beside.
    @Test(.timeLimit(.minutes(5))) func linesWrittenWhileTheHostsHandlerBlocksDoNotCutTheChildOff() async throws {
        let gate = DispatchSemaphore(value: 0)
        let lines = Collected<[PluginLogLine]>([])
        let logs = PluginLogs(level: .trace) { line in
            // Each waiter passes the opened gate on.
            gate.wait()
            gate.signal()
            lines.withLock { $0.append(line) }
        }
        // The call timeout bounds the child's writes too (a host that takes no bytes for that long is
        // cut off): at 50 ms, a host's reader thread held up that long under ThreadSanitizer on a busy
        // machine cut the child off with no flood at all. The lines queue at once either way.
        let pair = try HostAndChild(logs, callTimeout: .seconds(2))
        let log = try pair.log()
        for batch in 0..<5 {
            await withTaskGroup(of: Void.self) { group in
                for line in 0..<64 {
                    group.addTask { try? await log.write(Self.line("info", "given up \(batch).\(line)")) }
                }
            }
        }
        gate.signal()
        try await log.write(Self.line("info", "after the handler moved again"))
        #expect(try await Self.drained(log, lines, mark: "mark 1").last?.message == "after the handler moved again")
    }
}
