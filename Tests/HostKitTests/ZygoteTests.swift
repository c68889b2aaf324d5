@testable import DynamicLoading
import Foundation
import Glibc
import TestSupport
import Testing

/// `Zygote`: the real child program (`plugin-process`) started as a zygote; each child it forks
/// goes on as a plugin's process (it waits for the host on its socket), which the tests read from
/// `/proc`. The bound only keeps a failed test (an end never told) from hanging the run.
@Suite(.timeLimit(.minutes(5)), .disabled(if: underThreadSanitizer, "ThreadSanitizer starts a thread in each forked child: no zygote serves (ZygoteRefusalTests)"))
struct ZygoteTests {
    static let program = BuiltPlugins.directory + "/plugin-process"

    /// A ready zygote of the child program, unconfined children in mind (it inherits this environment).
    func zygote(_ environment: [String: String] = [:]) throws -> Zygote {
        let zygote = try Zygote.start(executable: Self.program, name: "zygote-tests: plugin zygote", arguments: [],
                                      environment: environment, inheritingEnvironment: true)
        let problem = zygote.awaitReady(within: .seconds(120))
        #expect(problem == nil, "\(problem ?? "")")
        return zygote
    }

    /// A child of `zygote`, whose end goes to `onEnd`.
    func fork(_ zygote: Zygote, limits: ChildProcess.Limits = .init(), environment: [String: String] = [:],
              onEnd: @escaping @Sendable (ChildProcess.Ending) -> Void = { _ in }) throws -> ChildProcess {
        try zygote.spawn(name: "zygote-tests: plugin libforked.so", threadName: "libforked.so", environment: environment,
                         inheritingEnvironment: false, limits: limits, onOutput: nil, onEnd: onEnd)
    }

    @Test func aForkedChildStartsAsASpawnedOneDoes() async throws {
        let zygote = try zygote()
        defer { zygote.end() }
        let limits = ChildProcess.Limits(cpuSeconds: 600, openFiles: 77)
        let child = try fork(zygote, limits: limits, environment: ["ZYGOTE_TESTS_VARIABLE": "forked"])
        defer { child.kill() }
        let pid = child.pid
        // The zygote's child, named as asked, leading a group of its own.
        let stat = try #require(Self.statFields(pid))
        #expect(Int32(stat[1]) == zygote.pid, "\(stat)")
        #expect(Int32(stat[2]) == pid, "process group \(stat[2])")
        let command = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
        #expect(String(decoding: command.prefix { $0 != 0 }, as: UTF8.self) == "zygote-tests: plugin libforked.so")
        #expect(try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) == "libforked.so\n")
        // Its limits, set by itself, before its first read.
        let limitsText = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        #expect(Self.limit("Max open files", in: limitsText) == ["77", "77"], "\(limitsText)")
        #expect(Self.limit("Max cpu time", in: limitsText) == ["600", "601"], "\(limitsText)")
        // The signals ignored are the zygote's (as across an `exec`: the `host` command ignores
        // SIGPIPE as it starts, and so does a child it spawns), no handler of its; descriptor 0
        // reads /dev/null, 1 and 2 are one socket, the host's output.
        // (glibc's own two, 32 and 33, which no program may change, left out).
        let glibcs = UInt64(3) << 31
        let ignored = try #require(Self.ignoredSignals(pid)), zygoteIgnored = try #require(Self.ignoredSignals(zygote.pid))
        #expect(ignored & ~glibcs == zygoteIgnored & ~glibcs, "\(String(ignored, radix: 16)) against \(String(zygoteIgnored, radix: 16))")
        let caught = try #require(Self.signalField("SigCgt", of: "/proc/\(pid)/status"))
        #expect(caught & ~glibcs == 0, "caught: \(String(caught, radix: 16))")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/0") == "/dev/null")
        let out = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/1")
        #expect(try out.hasPrefix("socket:") && out == (FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/2")))
        // Its main thread, the zygote's copy, runs nothing more (FreshThread): it blocks every signal
        // it can, and another thread, which blocks none, serves.
        // The serving thread starts as the fork's setup ends: waited for.
        let masks = {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.compactMap(Int32.init) ?? []
            return threads.map { thread in (thread, Self.signalField("SigBlk", of: "/proc/\(pid)/task/\(thread)/status")) }
        }
        try await waitFor(atMost: .seconds(60), { masks().contains { $0.0 != pid && $0.1 == 0 } }, orSay: "no thread serves with no signal blocked")
        let mainMask = try #require(masks().first { $0.0 == pid }?.1)
        #expect(mainMask & (1 << (UInt64(SIGTERM) - 1)) != 0 && mainMask & (1 << (UInt64(SIGSEGV) - 1)) != 0,
                "main thread's mask \(String(mainMask, radix: 16))")
        // None of the zygote's descriptors, also in a second child: not its socket to the host, not a
        // pidfd of the first child, not a pipe of its fork.
        let second = try fork(zygote)
        defer { second.kill() }
        let zygoteSocket = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(zygote.pid)/fd/3")
        for child in [pid, second.pid] {
            for descriptor in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/fd") {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/fd/\(descriptor)")) ?? ""
                #expect(target != zygoteSocket && !target.contains("pidfd") && !target.hasPrefix("pipe:"),
                        "descriptor \(descriptor) of \(child): \(target)")
            }
        }
    }

    @Test func aForkedChildsEndIsToldWithItsStatusOnce() async throws {
        let zygote = try zygote()
        defer { zygote.end() }
        let endings = Lock<[ChildProcess.Ending]>([])
        let child = try fork(zygote) { ending in endings.withLock { $0.append(ending) } }
        #expect(!child.hasEnded)
        child.kill()
        #expect(await onAThreadOfItsOwn { child.waitForEnd() } == .signalled(SIGKILL))
        #expect(endings.withLock { $0 } == [.signalled(SIGKILL)])
        #expect(child.hasEnded)
        // Reaped by the zygote, the id may be another's: nothing is sent any more, and nothing is told again.
        child.kill()
        #expect(child.waitForEnd() == .signalled(SIGKILL) && endings.withLock { $0.count } == 1)
        // The host closing its connection ends a child with status 0 (`PluginChild`'s end).
        let second = try fork(zygote)
        Glibc.shutdown(second.socket, Int32(SHUT_RDWR))
        #expect(await onAThreadOfItsOwn { second.waitForEnd() } == .exited(0))
        #expect(zygote.problem == nil)
    }

    @Test func aClosedZygoteForksNoMoreAndEndsAfterItsLastChild() async throws {
        let zygote = try zygote()
        let child = try fork(zygote)
        zygote.close()
        #expect(throws: ChildProcessError.self) { try fork(zygote) }
        // Its child is served on, and its end still told as it was.
        #expect(!child.hasEnded)
        #expect(Posix.isRunning(zygote.pid))
        child.kill()
        #expect(await onAThreadOfItsOwn { child.waitForEnd() } == .signalled(SIGKILL))
        try await waitFor(atMost: .seconds(60), { !Self.exists(zygote.pid) }, orSay: "the zygote outlived its last child")
    }

    @Test func aKilledZygoteTakesItsChildrenAndTheirEndsAreStillSeen() async throws {
        let zygote = try zygote()
        let children = try (0..<2).map { _ in try fork(zygote) }
        zygote.end()
        for child in children {
            // Dead with the zygote (PR_SET_PDEATHSIG); how it ended, nobody told: unknown.
            #expect(await onAThreadOfItsOwn { child.waitForEnd() } == .exited(-1))
            #expect(child.hasEnded)
        }
        #expect(zygote.problem != nil)
        #expect(throws: ChildProcessError.self) { try fork(zygote) }
    }

    @Test func aZygoteThatEndsAtItsStartIsNotReadyAndSaysWhy() throws {
        let zygote = try Zygote.start(executable: "/bin/sh", name: "zygote-tests: plugin zygote", arguments: ["-c", "exit 3"],
                                      environment: [:], inheritingEnvironment: false)
        let problem = zygote.awaitReady(within: .seconds(120))
        #expect(problem?.contains("exited with status 3") == true, "\(problem ?? "")")
    }

    /// The fields of `/proc/PID/stat` after the command (state, parent, group, ...).
    static func statFields(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// The signals `pid` ignores, a bit each (`SigIgn` of its status: bit N-1 for signal N).
    static func ignoredSignals(_ pid: Int32) -> UInt64? {
        signalField("SigIgn", of: "/proc/\(pid)/status")
    }

    /// The signal set `field` of the status file at `path`, a bit each (bit N-1 for signal N).
    static func signalField(_ field: String, of path: String) -> UInt64? {
        guard let status = try? String(contentsOfFile: path, encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return UInt64(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces), radix: 16)
    }

    /// Whether `pid` is still a process (a zombie counts).
    static func exists(_ pid: Int32) -> Bool {
        statFields(pid) != nil
    }

    /// The soft and hard value of the limit named `name` in a `/proc/PID/limits` text.
    static func limit(_ name: String, in text: String) -> [String] {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return [] }
        return line.dropFirst(name.count).split(separator: " ").prefix(2).map(String.init)
    }
}

/// Under ThreadSanitizer, whose fork starts a thread in the child (which could then enter no user
/// namespace), a zygote refuses to serve and says why; hosts start each process on their own.
@Suite(.timeLimit(.minutes(5)), .enabled(if: underThreadSanitizer)) struct ZygoteRefusalTests {
    @Test func aZygoteUnderThreadSanitizerRefusesAndSaysWhy() throws {
        let zygote = try Zygote.start(executable: ZygoteTests.program, name: "zygote-tests: plugin zygote", arguments: [],
                                      environment: [:], inheritingEnvironment: true)
        let problem = zygote.awaitReady(within: .seconds(120))
        #expect(problem?.contains("ThreadSanitizer") == true, "\(problem ?? "")")
        #expect(throws: ChildProcessError.self) {
            try zygote.spawn(name: "x", threadName: "x", environment: [:], inheritingEnvironment: false, limits: .init(),
                             onOutput: nil, onEnd: { _ in })
        }
    }
}
