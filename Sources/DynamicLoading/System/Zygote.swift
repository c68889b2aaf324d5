import CDynamicLinker
import Dispatch
import Foundation
import Glibc

/// A process of the child program kept to fork children from (``ZygoteServer`` is its side): its
/// libraries are mapped and bound and its first paths warmed once, so a child it forks skips the
/// start of a program (about 9 ms here) and those first uses. As Chromium's and Android's zygotes.
///
/// A forked child is handed out as a ``ChildProcess`` with the same invariants as a spawned one
/// (descriptors, signals, group, limits before its first read, one end), but for two: it is the
/// zygote's child, not the host's (the zygote reaps it and tells the host how it ended; the host
/// signals it through a pidfd, which no other process can come to own), and its command line is
/// the zygote's (`ps` shows the zygote's name; its thread is named as asked).
///
/// Invariants: one fork request at a time (``spawn(name:environment:inheritingEnvironment:limits:onOutput:onEnd:)``
/// holds ``requests``); the reader thread is the only one that reads the zygote's socket, and records
/// a forked child before it reads the next message (its end can come next); once the zygote is gone
/// (its socket's end, its process's end), every child it had gets nil as its word, and
/// ``spawn(name:environment:inheritingEnvironment:limits:onOutput:onEnd:)`` throws.
package final class Zygote: Sendable {
    /// The reply to the fork request in flight.
    private enum Reply: Sendable {
        case forked(ForkedChild)
        case failed(String)
    }

    private struct State: Sendable {
        /// Nil until the zygote said it is ready or refused; then whether it serves.
        var ready: Bool?
        /// Why it does not serve (refused, closed, or gone).
        var problem: String?
        /// The number of the request in flight, and its reply once it came.
        var waiting: UInt64?
        var reply: Reply?
        /// The last request's number.
        var requests: UInt64 = 0
        /// Its children, by id, until their end is reported.
        var children: [Int32: ForkedChild] = [:]
    }

    private let process: ChildProcess
    /// The zygote's socket, a duplicate of ``ChildProcess/socket`` this owns: that one is closed
    /// once the zygote's end is handled, and its number may be another file's by the time a
    /// request or the reader uses it; this one is closed only when the ``Zygote`` goes.
    private let control: Int32
    private let state = Lock(State())
    private let requests = Lock(())
    private let answered = DispatchSemaphore(value: 0)
    private let settled = DispatchGroup()

    private init(process: ChildProcess, control: Int32) {
        self.process = process
        self.control = control
    }

    deinit {
        Posix.close(control)
    }

    /// Why a process of this build cannot serve as a zygote; nil if it can. ThreadSanitizer's fork
    /// starts a thread of its own in the child, which then could not enter a sandbox (a user
    /// namespace takes a process of one thread). A host of such a build starts no zygote (its child
    /// program is, most likely, of the same build); a zygote of one refuses.
    package static let unforkableBuild: String? =
        dlsym(nil, "__tsan_init") != nil  // nil: RTLD_DEFAULT, every object loaded
            ? "it runs under ThreadSanitizer, which starts a thread in each child it forks" : nil

    /// Room for a child's name in `ps`: the zygote's `argv[0]` is its name padded with spaces to this
    /// many bytes, which a child writes its own name over.
    static let nameRoom = 200

    /// Starts `executable` as a zygote (``ZygoteServer/variable`` set in `environment`), named `name`
    /// in `ps`; it warms while this returns. ``awaitReady(within:)`` waits for it.
    package static func start(executable: String, name: String, arguments: [String], environment: [String: String],
                              inheritingEnvironment: Bool) throws(ChildProcessError) -> Zygote {
        var environment = environment
        environment[ZygoteServer.variable] = "1"
        let padded = name + String(repeating: " ", count: max(0, nameRoom - name.utf8.count))
        // The socket is closed once `onEnd` returns: not before this has its own duplicate (a zygote
        // may end at once). Its reader reads what it said up to the socket's end (shut down once it
        // is reaped), then says how it ended.
        let duplicated = DispatchSemaphore(value: 0)
        let process = try ChildProcess.spawn(executable: executable, name: padded, arguments: arguments, environment: environment,
                                             inheritingEnvironment: inheritingEnvironment, limits: ChildProcess.Limits(),
                                             socketType: SOCK_SEQPACKET, onOutput: nil) { _ in duplicated.wait() }
        let control = fcntl(process.socket, F_DUPFD_CLOEXEC, 0)
        duplicated.signal()
        guard control >= 0 else {
            process.kill()
            throw .cannotFork(reason: "its socket could not be duplicated: \(String(cString: strerror(errno)))")
        }
        let zygote = Zygote(process: process, control: control)
        zygote.settled.enter()
        let reader = Thread { [zygote] in zygote.read() }
        reader.name = "zygote \(process.pid) reader"
        reader.start()
        return zygote
    }

    /// Whether the zygote said it is ready within `timeout`; if not, why not.
    package func awaitReady(within timeout: Duration) -> String? {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if settled.wait(timeout: .now() + seconds) == .timedOut {
            // No child of its yet: nothing dies with it.
            end()
            return "it did not say it was ready within \(timeout)"
        }
        return state.withLock { $0.ready == true ? nil : $0.problem ?? "it is gone" }
    }

    /// Why it does not serve now (it refused, or ended); nil while it does.
    package var problem: String? {
        state.withLock { $0.ready == true && $0.problem == nil ? nil : $0.problem ?? "it is not ready yet" }
    }

    /// The zygote's process id.
    package var pid: Int32 { process.pid }

    /// Asks no more of the zygote: it forks no more, and ends once its last child has ended (each
    /// is told of its end as before).
    package func close() {
        requests.withLock {
            state.withLock { if $0.problem == nil { $0.problem = "it was closed" } }
            _ = Glibc.shutdown(control, Int32(SHUT_WR))
        }
    }

    /// Ends the zygote at once: its children die with it (each asked to at its fork).
    package func end() {
        process.kill(SIGKILL)
    }

    /// A child forked from the zygote, as ``ChildProcess/spawn(executable:name:arguments:environment:inheritingEnvironment:limits:socketType:onOutput:onEnd:)``
    /// would start it (the zygote's program and arguments), named `name` in `ps` (up to
    /// ``nameRoom`` bytes) and its thread `threadName`.
    package func spawn(name: String, threadName: String, environment: [String: String], inheritingEnvironment: Bool, limits: ChildProcess.Limits,
                       onOutput: (@Sendable (String) -> Void)?,
                       onEnd: @escaping @Sendable (ChildProcess.Ending) -> Void) throws(ChildProcessError) -> ChildProcess {
        let variables = try ChildProcess.commandLineEnvironment(environment, inheriting: inheritingEnvironment)
        let number = state.withLock { state in
            state.requests += 1
            return state.requests
        }
        let request = ZygoteMessage.fork(ZygoteForkRequest(
            number: number, name: name, threadName: threadName, environment: variables,
            limits: limits.settings.map { ZygoteForkRequest.Limit(resource: $0.resource, soft: $0.soft, hard: $0.hard) }))
        guard request.bytes.count < ZygoteMessage.capacity else {
            throw .cannotFork(reason: "its environment is larger than a request to the zygote may be")
        }
        var socketEnds: (Int32, Int32)?, outputEnds: (Int32, Int32)?
        let closeAll = {
            for ends in [socketEnds, outputEnds] { if let ends { Posix.close(ends.0); Posix.close(ends.1) } }
        }
        do throws(SystemCallError) {
            socketEnds = try Posix.socketPair()
            outputEnds = try Posix.socketPair()
        } catch {
            closeAll()
            throw .cannotFork(reason: "\(error)")
        }
        guard let (socket, childSocket) = socketEnds, let (output, childOutput) = outputEnds else { throw .cannotFork(reason: "no sockets") }
        let reply = requests.withLock { _ -> Reply in
            if let problem { return .failed(problem) }
            // A signal left by a reply that came after its request was given up on is not this one's.
            while answered.wait(timeout: .now()) == .success {}
            state.withLock { state in
                state.reply = nil
                state.waiting = number
            }
            guard request.send(on: control, descriptors: [childSocket, childOutput]) else {
                state.withLock { $0.waiting = nil }
                return .failed("its socket is closed")
            }
            // The zygote forks at once; one that does not answer for long is stuck: it forks no
            // more (closed, not killed: its children live on), and a late reply is no one's.
            guard answered.wait(timeout: .now() + 10) == .success else {
                state.withLock { state in
                    state.waiting = nil
                    if state.problem == nil { state.problem = "it did not answer a request within 10 s" }
                }
                _ = Glibc.shutdown(control, Int32(SHUT_WR))
                return .failed("it did not answer within 10 s")
            }
            return state.withLock { $0.reply } ?? .failed("it is gone")
        }
        Posix.close(childSocket)
        Posix.close(childOutput)
        guard case let .forked(child) = reply else {
            Posix.close(socket)
            Posix.close(output)
            if case let .failed(reason) = reply { throw .cannotFork(reason: reason) }
            throw .cannotFork(reason: "it is gone")
        }
        let watch = ChildProcess.Watch(pid: child.pid, socket: socket, output: output, limits: limits, forked: child,
                                       onOutput: onOutput, onEnd: onEnd)
        watch.start()
        return ChildProcess(watch: watch)
    }

    /// The reader thread: every message of the zygote, until its socket's end.
    private func read() {
        var buffer: [UInt8] = []
        while let (message, descriptors) = ZygoteMessage.receive(from: control, into: &buffer) {
            // Only a `forked` reply passes one, which it keeps.
            let passed = descriptors
            var kept: Int32?
            defer { passed.filter { $0 != kept }.forEach(Posix.close) }
            switch message {
            case .ready:
                state.withLock { $0.ready = true }
                settled.leave()
            case let .refused(reason):
                gone("it refused to fork: \(reason)")
            case let .forked(pid, number):
                guard let pidfd = descriptors.first else {
                    answer(.failed("it sent no pidfd of its child"), to: number)
                    continue
                }
                let child = ForkedChild(pid: pid, pidfd: pidfd)
                // A child of a request given up on is no one's: its socket's other end is closed,
                // so it ends; its end is still reaped by the zygote.
                guard answer(.forked(child), to: number) else { continue }
                kept = pidfd
                state.withLock { $0.children[pid] = child }
            case let .failed(reason, number):
                answer(.failed(reason), to: number)
            case let .ended(pid, status, user, system):
                let child = state.withLock { $0.children.removeValue(forKey: pid) }
                child?.give(ForkedChild.Word(status: status, cpuTime: .microseconds(user) + .microseconds(system)))
            case .fork, nil:
                descriptors.forEach(Posix.close)
            }
        }
        // It closes its socket only as it ends: say how.
        gone("it \(process.waitForEnd())")
    }

    /// Hands `reply` to the fork request numbered `number` if it is the one waiting (nil: to the one
    /// waiting, if any); whether it was.
    @discardableResult
    private func answer(_ reply: Reply, to number: UInt64?) -> Bool {
        let taken = state.withLock { state -> Bool in
            guard let waiting = state.waiting, number == nil || number == waiting else { return false }
            state.waiting = nil
            state.reply = reply
            return true
        }
        if taken { answered.signal() }
        return taken
    }

    /// The zygote serves no more: its children get no word of their end but their own.
    private func gone(_ reason: String) {
        let (children, wasSettled) = state.withLock { state -> ([ForkedChild], Bool) in
            let wasSettled = state.ready != nil
            if state.problem == nil { state.problem = reason }
            if state.ready == nil { state.ready = false }
            defer { state.children = [:] }
            return (Array(state.children.values), wasSettled)
        }
        if !wasSettled { settled.leave() }
        children.forEach { $0.give(nil) }
        answer(.failed(reason), to: nil)
    }
}
