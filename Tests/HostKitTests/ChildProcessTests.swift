@testable import DynamicLoading
import Foundation
import Glibc
import TestSupport
import Testing

/// `ChildProcess`: children are `/bin/sh -c '...'`. The bound only keeps a failed test (a child whose
/// end is never seen) from hanging the run.
@Suite(.timeLimit(.minutes(5))) struct ChildProcessTests {
    // MARK: How it ended

    @Test func aChildThatExitsEndsWithItsStatusAndOnEndIsCalledOnce() async throws {
        let endings = Lock<[ChildProcess.Ending]>([])
        let child = try shell("exit 3", onEnd: { ending in endings.withLock { $0.append(ending) } })
        let ending = await ended(child)
        #expect(ending == .exited(3))
        #expect(ending.description == "exited with status 3")
        #expect(endings.withLock { $0 } == [.exited(3)])
        #expect(child.endingDescription == "exited with status 3")
    }

    @Test func aChildEndedByASignalSaysWhich() async throws {
        let child = try shell("kill -SEGV $$")
        let ending = await ended(child)
        #expect(ending == .signalled(SIGSEGV))
        #expect(ending.description == "was killed by signal 11 (SIGSEGV)")
    }

    @Test func killEndsARunningChildAndLaterKillsDoNothing() async throws {
        let child = try shell("read x <&3")  // waits for the host, which never writes
        child.kill()
        #expect(await ended(child) == .signalled(SIGKILL))
        #expect(child.endingDescription == "was killed by signal 9 (SIGKILL)")
        child.kill()  // reaped: nothing to signal, nothing happens
        child.kill(SIGTERM)
        #expect(child.waitForEnd() == .signalled(SIGKILL))
    }

    @Test func aRunningChildHasNotEndedAndAKilledOneHasBeforeAndAfterItsEndIsHandled() async throws {
        let child = try shell("read x <&3")  // waits for the host, which never writes
        #expect(!child.hasEnded)
        child.kill()
        // A zombie first (its waiter may not have reaped it yet), then reaped: ended both times.
        try await waitFor(atMost: .seconds(60), { child.hasEnded })
        #expect(await ended(child) == .signalled(SIGKILL))
        #expect(child.hasEnded)
    }

    @Test func releasingARunningChildKillsItAndStillReportsItsEnd() async throws {
        let ending = await withCheckedContinuation { (continuation: CheckedContinuation<ChildProcess.Ending, Never>) in
            do {
                let child = try shell("read x <&3", onEnd: { continuation.resume(returning: $0) })
                #expect(child.pid > 0)
            } catch {
                Issue.record("\(error)")
                continuation.resume(returning: .exited(-2))
            }
        }
        #expect(ending == .signalled(SIGKILL))
    }

    @Test func waitForEndCalledFromOnEndReturnsAtOnce() async throws {
        let box = Lock<ChildProcess?>(nil)
        let fromOnEnd = Lock<ChildProcess.Ending?>(nil)
        let child = try shell("read x <&3; exit 7", onEnd: { _ in
            let ending = box.withLock { $0 }?.waitForEnd()
            fromOnEnd.withLock { $0 = ending }
        })
        box.withLock { $0 = child }
        try send(child, "go\n")
        #expect(await ended(child) == .exited(7))
        #expect(fromOnEnd.withLock { $0 } == .exited(7))
        box.withLock { $0 = nil }
    }

    // MARK: Output

    @Test func theOutputKeepsTheLastLinesAndCutsALongOne() async throws {
        let seen = Lock<[String]>([])
        let script = #"for i in $(seq 1 50); do echo "line $i"; done; head -c 5000 /dev/zero | tr '\0' x; echo; echo "to stderr" >&2; printf "no line feed""#
        let child = try shell(script, onOutput: { line in seen.withLock { $0.append(line) } })
        #expect(await ended(child) == .exited(0))
        let long = String(repeating: "x", count: 1024) + "…"
        #expect(child.lastOutputLines == (34...50).map { "line \($0)" } + [long, "to stderr", "no line feed"])
        #expect(seen.withLock { $0 } == (1...50).map { "line \($0)" } + [long, "to stderr", "no line feed"])
    }

    @Test func aChildThatWritesMegabytesIsDrainedAndEnds() async throws {
        let child = try shell(#"head -c 8000000 /dev/zero | tr '\0' y; echo; seq 1 100000; echo done"#)
        #expect(await ended(child) == .exited(0))
        #expect(child.lastOutputLines.last == "done")
        #expect(child.lastOutputLines.count == 20)
    }

    /// A grandchild that keeps the output (and the socket) open does not keep the end from being seen.
    @Test func aGrandchildHoldingTheOutputDoesNotDelayTheEnd() async throws {
        let child = try shell("sleep 600 & echo $!; echo parent done")
        #expect(await ended(child) == .exited(0))
        let lines = child.lastOutputLines
        #expect(lines.last == "parent done")
        if let grandchild = lines.first.flatMap({ Int32($0) }) { Glibc.kill(grandchild, SIGKILL) }
    }

    // MARK: Descriptors and reaping

    /// The child has 0 (/dev/null), 1 and 2 (the output) and 3 (the socket), nothing else: not even a
    /// descriptor of the host that is not close-on-exec.
    @Test func theChildHasExactlyItsFourDescriptors() async throws {
        let inheritable = Glibc.open("/dev/null", O_RDONLY)  // no O_CLOEXEC, on purpose
        defer { Glibc.close(inheritable) }
        // `ls` lists the shell's descriptors while the shell waits for it (a `$(...)` would open a pipe).
        let child = try shell("ls -l /proc/$$/fd")
        #expect(await ended(child) == .exited(0))
        let entries = child.lastOutputLines.compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let arrow = words.firstIndex(of: "->"), arrow > 0, arrow + 1 < words.count else { return nil }
            return "\(words[arrow - 1]) \(words[(arrow + 1)...].joined(separator: " "))"
        }
        #expect(entries.map { $0.prefix { $0 != " " } } == ["0", "1", "2", "3"], "\(child.lastOutputLines)")
        #expect(entries.first == "0 /dev/null")
        #expect(entries.dropFirst().allSatisfy { $0.contains(" socket:[") }, "\(entries)")
    }

    /// After 50 children have ended: none of the sockets made for them is open in the host (the
    /// child's ends closed right after the spawn, the host's once the child is reaped), every child is
    /// reaped (no zombie: no child of ours is left to wait for). The sockets are told apart by their
    /// inodes, not counted: other suites open and close descriptors while this one runs.
    @Test func fiftyChildrenLeaveNoDescriptorAndNoZombie() async throws {
        var sockets: Set<String> = []
        var pids: [Int32] = []
        for round in 0..<50 {
            // The child names its own ends (1 and 3); the host's are looked up in its own table.
            let child = try shell(#"read x <&3; readlink /proc/$$/fd/1 /proc/$$/fd/3"#)
            let hosts = ["socket:[\(try inode(child.socket))]", "socket:[\(try inode(child.watch.output))]"]
            try send(child, "go\n")
            if round % 2 == 1 { child.kill() }
            _ = await ended(child)
            sockets.formUnion(child.lastOutputLines.filter { $0.hasPrefix("socket:[") } + hosts)
            pids.append(child.pid)
        }
        #expect(sockets.count >= 100)
        let open = Set(openDescriptors().values)
        #expect(sockets.isDisjoint(with: open), "\(sockets.intersection(open))")
        for pid in pids {
            var status: Int32 = 0
            #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "child \(pid) is not reaped")
            #expect(Glibc.kill(pid, 0) == -1 && errno == ESRCH, "child \(pid) is still there")
        }
    }

    /// Kills racing the child's own end, kills from two threads at once, releases while it runs: each
    /// child ends once, is reaped, and leaves no socket open.
    @Test func anyOrderOfKillEndAndReleaseLeavesNothing() async throws {
        let endings = Lock(0)
        var pids: [Int32] = []
        var sockets: Set<String> = []
        var kept: [ChildProcess] = []
        for round in 0..<30 {
            let child = try shell("read x <&3; exit 1", onEnd: { _ in endings.withLock { $0 += 1 } })
            pids.append(child.pid)
            sockets.formUnion(["socket:[\(try inode(child.socket))]", "socket:[\(try inode(child.watch.output))]"])
            switch round % 3 {
            case 0:  // its own end and a kill, at the same time
                try send(child, "go\n")
                Thread { child.kill() }.start()
                kept.append(child)
            case 1:  // released at once: the release kills it
                break
            default:  // killed from two threads, and released while its end is under way
                Thread { child.kill() }.start()
                child.kill(SIGTERM)
            }
        }
        kept.removeAll()
        let done = try await poll(atMost: .seconds(120)) {
            endings.withLock { $0 } == 30 && sockets.isDisjoint(with: openDescriptors().values)
        }
        #expect(done, "\(endings.withLock { $0 }) ended")
        for pid in pids {
            var status: Int32 = 0
            #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "child \(pid) is not reaped")
        }
    }

    /// The child's ends are closed in the host as soon as it is spawned: while it runs, the host holds
    /// the two ends it keeps, and not the child's.
    @Test func theHostClosesTheChildsEndsRightAfterTheSpawn() async throws {
        let child = try shell(#"readlink /proc/$$/fd/1 /proc/$$/fd/3; read x <&3"#)
        #expect(try await poll(atMost: .seconds(60)) { child.lastOutputLines.count == 2 })
        let childEnds = child.lastOutputLines
        let open = Set(openDescriptors().values)
        #expect(childEnds.allSatisfy { $0.hasPrefix("socket:[") }, "\(childEnds)")
        for end in childEnds { #expect(!open.contains(end), "the child's \(end) is open in the host") }
        #expect(open.contains("socket:[\(try inode(child.socket))]"))
        child.kill()
        _ = await ended(child)
    }

    @Test func theChildLeadsAProcessGroupOfItsOwn() async throws {
        let child = try shell(#"echo $$; cut -d' ' -f5 /proc/$$/stat"#)
        #expect(await ended(child) == .exited(0))
        let lines = child.lastOutputLines
        #expect(lines.count == 2 && lines.first == lines.last, "\(lines)")
    }

    @Test func theEnvironmentIsTheHostsWithWhatIsAdded() async throws {
        let child = try ChildProcess.spawn(executable: "/bin/sh", arguments: ["-c", #"echo "$CHILD_GREETING"; echo "${PATH:+has a path}""#],
                                           environment: ["CHILD_GREETING": "hello there"], limits: .init(),
                                           onOutput: nil, onEnd: { _ in })
        #expect(await ended(child) == .exited(0))
        #expect(child.lastOutputLines == ["hello there", "has a path"])
    }

    // MARK: Failures to start

    @Test func aProgramThatCannotRunIsANamedErrorAndLeavesNothingOpen() async throws {
        let folder = try TemporaryFolder()
        let notExecutable = folder.file("plain")
        try "echo hi\n".write(toFile: notExecutable, atomically: true, encoding: .utf8)
        // Each attempt makes two socket pairs: 200 that leaked would leave 800 sockets open, far more
        // than other suites running beside this one hold.
        let before = openSockets()
        for _ in 0..<200 {
            #expect(throws: ChildProcessError.self) { try ChildProcess.spawn(executable: notExecutable, arguments: [], environment: [:], limits: .init(), onOutput: nil, onEnd: { _ in }) }
        }
        #expect(openSockets() - before < 100)

        let missing = folder.file("missing")
        for (path, reason) in [(missing, "No such file or directory"), (notExecutable, "Permission denied")] {
            do {
                _ = try ChildProcess.spawn(executable: path, arguments: [], environment: [:], limits: .init(), onOutput: nil, onEnd: { _ in })
                Issue.record("\(path) started")
            } catch {
                #expect(error.description == "cannot start \(path.debugDescription) as a child process: posix_spawn: \(reason)")
            }
        }
    }

    @Test func textTheSystemCannotTakeIsRefusedByName() throws {
        #expect(throws: ChildProcessError.self) { try ChildProcess.spawn(executable: "/bin/sh", arguments: ["-c", "a\0b"], environment: [:], limits: .init(), onOutput: nil, onEnd: { _ in }) }
        do {
            _ = try ChildProcess.spawn(executable: "/bin/sh", arguments: [], environment: ["A=B": "c"], limits: .init(), onOutput: nil, onEnd: { _ in })
            Issue.record("started")
        } catch {
            #expect(error.description.contains("environment variable name \"A=B\""), "\(error)")
        }
    }

    // MARK: Limits

    /// The limits are in place before the host sends the child anything: a child that waits for the
    /// host's first byte, then looks, sees them.
    @Test func theChildSeesItsLimitsFromItsFirstRequest() async throws {
        let limits = ChildProcess.Limits(memoryBytes: 512 << 20, cpuSeconds: 30, openFiles: 64)
        let child = try shell(#"read x <&3; ulimit -n; ulimit -t; grep -E "^Max (cpu time|data size|open files)" /proc/$$/limits"#,
                              limits: limits)
        try send(child, "go\n")
        #expect(await ended(child) == .exited(0))
        let lines = child.lastOutputLines.map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines == ["64", "30", "Max cpu time 30 31 seconds", "Max data size 536870912 536870912 bytes",
                          "Max open files 64 64 files"])
    }

    @Test func aChildPastItsCPULimitEnds() async throws {
        let child = try shell("read x <&3; while :; do :; done", limits: .init(cpuSeconds: 1))
        try send(child, "go\n")
        let ending = await ended(child)
        #expect(ending == .signalled(SIGXCPU) || ending == .signalled(SIGKILL))
        #expect(child.endingDescription?.contains("passed its CPU time limit") == true, "\(child.endingDescription ?? "")")
    }

    /// A child that ignores SIGXCPU is killed at the hard limit, a second later, and the report still
    /// says why.
    @Test func aChildIgnoringSIGXCPUIsKilledAtTheHardLimitAndTheReportSaysWhy() async throws {
        let child = try shell("trap '' XCPU; read x <&3; while :; do :; done", limits: .init(cpuSeconds: 1))
        try send(child, "go\n")
        #expect(await ended(child) == .signalled(SIGKILL))
        #expect(child.endingDescription == "was killed by signal 9 (SIGKILL): it passed its CPU time limit of 1 s")
    }

    /// 200 MB in a shell variable, under a 64 MiB limit (without it the child prints "survived").
    @Test func aChildAllocatingPastItsMemoryLimitEnds() async throws {
        let child = try shell(#"read x <&3; x=$(head -c 200000000 /dev/zero | tr '\0' a); echo survived"#,
                              limits: .init(memoryBytes: 64 << 20))
        try send(child, "go\n")
        let ending = await ended(child)
        #expect(ending != .exited(0))
        #expect(!child.lastOutputLines.contains("survived"))
    }

    @Test func aLimitTheSystemRefusesIsANamedError() throws {
        do {
            _ = try shell("exit 0", limits: .init(openFiles: 1 << 40))
            Issue.record("started")
        } catch let error as ChildProcessError {
            #expect(error.description.hasPrefix("cannot limit a child process's open files (RLIMIT_NOFILE) to 1099511627776: prlimit: "),
                    "\(error)")
        }
    }

    // MARK: The output's lines

    @Test func theTailCutsLinesAcrossChunksAndKeepsTheLast() {
        var tail = OutputTail(maximumLines: 2, maximumLineBytes: 4)
        #expect(tail.append(Array("ab".utf8)) == [])
        #expect(tail.append(Array("c\nabcdefg".utf8)) == ["abc"])
        #expect(tail.append(Array("h\n\n".utf8)) == ["abcd…", ""])
        #expect(tail.lines == ["abcd…", ""])
        #expect(tail.append(Array("xy".utf8)) == [])
        #expect(tail.finish() == "xy")
        #expect(tail.finish() == nil)
        #expect(tail.lines == ["", "xy"])
    }

    // MARK: -

    /// `/bin/sh -c script`.
    private func shell(_ script: String, limits: ChildProcess.Limits = .init(), onOutput: (@Sendable (String) -> Void)? = nil,
                       onEnd: @escaping @Sendable (ChildProcess.Ending) -> Void = { _ in }) throws -> ChildProcess {
        try ChildProcess.spawn(executable: "/bin/sh", arguments: ["-c", script], environment: [:], limits: limits,
                               onOutput: onOutput, onEnd: onEnd)
    }

    /// The child's ending, waited for on a thread of its own.
    private func ended(_ child: ChildProcess) async -> ChildProcess.Ending {
        await onAThreadOfItsOwn { child.waitForEnd() }
    }

    /// Writes `text` to the child's socket (with MSG_NOSIGNAL, as the host must).
    private func send(_ child: ChildProcess, _ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(child.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent != bytes.count { throw SystemCallError.last("send") }
    }

    /// This process's open descriptors and what each is (`readlink` of /proc/self/fd/N).
    private func openDescriptors() -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Dictionary(uniqueKeysWithValues: names.compactMap { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")).map { (name, $0) }
        })
    }

    /// How many sockets this process has open.
    private func openSockets() -> Int {
        openDescriptors().values.filter { $0.hasPrefix("socket:[") }.count
    }

    /// The inode of the socket at `descriptor`.
    private func inode(_ descriptor: Int32) throws -> UInt {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SystemCallError.last("fstat") }
        return UInt(info.st_ino)
    }
}
