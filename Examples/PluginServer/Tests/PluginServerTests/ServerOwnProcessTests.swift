import Foundation
import Testing

/// The built server with a route plugin placed in a process of its own (`--own-process`): the
/// distributed route fixture (FixtureRemoteRoute, `GET /remote` answers `remote <pid>`) served from a
/// child of the server's own executable, beside the hello plugin in the server's process.
@Suite struct ServerOwnProcessTests: BuiltServer {
    let remoteFile = "libFixtureRemoteRoute.so"

    /// Without `--own-process` the same file is served in the server's process: its actor is called
    /// as itself, and answers with the server's pid.
    @Test(.timeLimit(.minutes(2)))
    func withoutOwnProcessTheDistributedRouteIsServedInTheServersProcess() async throws {
        let folder = try pluginFolder(["FixtureRemoteRoute"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, _, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }
        #expect(try await get("\(base)/remote") == (200, "remote \(server.processIdentifier)"))
        try await stopWithSigterm(server)
    }

    /// The route plugin's process killed with SIGKILL while clients ask for its route, for the hello
    /// plugin's route and for the compiled-in one without a pause: its route answers 500 to the one
    /// request in flight at the kill, if one was; the requests made while its process is restarted
    /// wait for the new process and are answered by it; every other request is answered 200; the
    /// server lives on and stops cleanly.
    @Test(.timeLimit(.minutes(3)))
    func aRoutePluginsProcessKilledUnderLoadFailsOnlyTheRequestInFlight() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureRemoteRoute"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log, base) = try await startServer(plugins: folder, ["--own-process", remoteFile])
        defer { if server.isRunning { server.terminate() } }
        let port = try #require(base.split(separator: ":").last.flatMap { UInt16($0) })
        let probe = KeepAliveClient(port: port)
        let before = try #require(try await remotePID(probe))
        #expect(before != server.processIdentifier)

        let hello = "/hello?name=Bo", compiled = "/compiled/hello?name=Bo"
        let others = RequestLoad(clients: 2, port: port, paths: [hello, compiled]) { _, answer in
            answer == .init(status: 200, body: "Hello, Bo!\n")
        }
        // The remote route's answers: its process's, or 500 while there is none.
        let remote = RequestLoad(clients: 1, port: port, paths: ["/remote"]) { _, answer in
            answer.status == 200 ? answer.body.hasPrefix("remote ") : answer.status == 500
        }
        try await waitForAnswers(from: others, atLeast: 20)
        try await waitForAnswers(from: remote, atLeast: 20)
        #expect(kill(before, SIGKILL) == 0)
        try await waitForLine(in: log, containing: "restarting")
        // Served again, by a new process.
        let deadline = ContinuousClock.now + .seconds(60)
        var after = try await remotePID(probe)
        while after == nil || after == before {
            try #require(ContinuousClock.now < deadline, "/remote was not served again")
            try await Task.sleep(for: .milliseconds(20))
            after = try await remotePID(probe)
        }
        try await waitForAnswers(from: others, atLeast: others.answered + 20)
        try await waitForAnswers(from: remote, atLeast: remote.answered + 20)

        let (otherCounts, otherFailed, otherFailures) = try await others.finish()
        #expect(otherFailed == 0, "\(otherFailed) requests of the other routes failed, the first: \(otherFailures)")
        #expect(otherCounts.keys.sorted() == ["\(compiled) 200 \"Hello, Bo!\\n\"", "\(hello) 200 \"Hello, Bo!\\n\""])
        let (remoteCounts, remoteFailed, remoteFailures) = try await remote.finish()
        #expect(remoteFailed == 0, "\(remoteFailed) requests of /remote got neither its answer nor a 500: \(remoteFailures)")
        // One client: at most its request in flight at the kill was answered 500 (before, every request
        // made during the restart was too).
        let answered500 = remoteCounts.filter { $0.key.hasPrefix("/remote 500 ") }.values.reduce(0, +)
        #expect(answered500 <= 1, "\(remoteCounts)")
        #expect(remoteCounts.keys.contains { $0.hasPrefix("/remote 200 \"remote \(after ?? 0)") }, "\(remoteCounts)")
        print("answered while the route's process was killed: \(otherCounts), \(remoteCounts)")
        #expect(server.isRunning)
        try await stopWithSigterm(server)
    }

    /// 100 upgrades of the route plugin in its own process, alternating its two versions, while
    /// clients ask for its route and the compiled-in one without a pause: every request is answered
    /// 200 by one version or the other, never an error. After each reload the route answers from the
    /// version just deployed, in a new process, and the old processes end.
    @Test(.timeLimit(.minutes(10)))
    func aRoutePluginInItsOwnProcessUpgradedAHundredTimesUnderLoadAnswersEveryRequest() async throws {
        let folder = try pluginFolder(["FixtureRemoteRoute"])
        defer { try? FileManager.default.removeItem(at: folder) }
        // (The folder holds version 1 as `remoteFile`.)
        let file = folder.appendingPathComponent(remoteFile)
        let (server, log, base) = try await startServer(plugins: folder, ["--own-process", remoteFile])
        defer { if server.isRunning { server.terminate() } }
        let port = try #require(base.split(separator: ":").last.flatMap { UInt16($0) })
        let probe = KeepAliveClient(port: port)
        let compiled = "/compiled/hello?name=Bo"
        let load = RequestLoad(clients: 2, port: port, paths: ["/remote", compiled]) { path, answer in
            answer.status == 200 && (path == compiled ? answer.body == "Hello, Bo!\n" : answer.body.hasPrefix("remote "))
        }
        try await waitForAnswers(from: load, atLeast: 20)
        for round in 1...100 {
            let version = round % 2 == 1 ? 2 : 1
            try deploy(version == 1 ? "FixtureRemoteRoute" : "FixtureRemoteRouteTwo", to: file)
            kill(server.processIdentifier, SIGHUP)
            try await waitForLine(in: log, containing: "serving plugin routes", occurrence: round + 1, atMost: .seconds(60))
            let answer = try await onAThread { try probe.get("/remote") }
            #expect(answer.status == 200 && answer.body.hasPrefix(version == 1 ? "remote " : "remote 2 ")
                    && (version == 2 || answer.body.split(separator: " ").count == 2), "after upgrade \(round): \(answer)")
        }
        try await waitForAnswers(from: load, atLeast: load.answered + 20)
        let (counts, failed, failures) = try await load.finish()
        #expect(failed == 0, "\(failed) requests failed, the first: \(failures)")
        print("answered under 100 upgrades of a route in its own process: \(counts.count) kinds of answer, \(counts.values.reduce(0, +)) in all")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count { $0.hasSuffix("plugin upgraded") && $0.contains("plugin=fixture-remote-route") } == 100)
        // The 100 replaced processes ended and were reaped: the server has one child, the last version's.
        let deadline = ContinuousClock.now + .seconds(30)
        while children(of: server.processIdentifier).count != 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(children(of: server.processIdentifier).count == 1, "children left: \(children(of: server.processIdentifier))")
        try await stopWithSigterm(server)
    }

    /// A request's W3C trace context (`traceparent`) reaches the route plugin's own process with the
    /// call (PluginActors' `PluginCallContext`), where the plugin reads it; a request without one
    /// carries none.
    @Test(.timeLimit(.minutes(2)))
    func aRequestsTraceContextReachesTheRoutePluginsOwnProcess() async throws {
        let folder = try pluginFolder(["FixtureRemoteRoute"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, _, base) = try await startServer(plugins: folder, ["--own-process", remoteFile])
        defer { if server.isRunning { server.terminate() } }
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let traced = try await request("GET", "\(base)/remote?trace=1", headers: ["traceparent: \(parent)"])
        #expect(traced.status == 200 && traced.body.hasPrefix("trace \(parent) from "), "\(traced)")
        let child = Int32(traced.body.split(separator: " ").last.map(String.init) ?? "")
        #expect(child != nil && child != server.processIdentifier, "\(traced.body)")
        // A tracestate longer than a call carries is left out; the request is answered all the same.
        let long = try await request("GET", "\(base)/remote?trace=1",
                                     headers: ["traceparent: \(parent)", "tracestate: \(String(repeating: "x", count: 2_000))"])
        #expect(long.status == 200 && long.body.hasPrefix("trace \(parent) from "), "\(long)")
        let plain = try await request("GET", "\(base)/remote?trace=1")
        #expect(plain.status == 200 && plain.body.hasPrefix("trace none from "), "\(plain)")
        try await stopWithSigterm(server)
    }

    /// The route plugin moved live, as an operator would: its placement in the `--config` file changed
    /// and SIGHUP, out of the server's process and back, while clients ask for its route and the
    /// compiled-in one without a pause. Every request is answered 200; the route answers from a child
    /// after the first move and from the server after the second; the log says `plugin moved` with
    /// where to; the child ends.
    @Test(.timeLimit(.minutes(5)))
    func aRoutePluginMovedIntoItsOwnProcessAndBackUnderLoadAnswersEveryRequest() async throws {
        let folder = try pluginFolder(["FixtureRemoteRoute"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("plugins.json")
        func place(_ placement: String?) throws {
            let object: [String: Any] = ["placement": placement.map { [remoteFile: $0] } ?? [:]]
            try JSONSerialization.data(withJSONObject: object).write(to: config)
        }
        try place(nil)
        let (server, log, base) = try await startServer(plugins: folder, ["--config", config.path])
        defer { if server.isRunning { server.terminate() } }
        let port = try #require(base.split(separator: ":").last.flatMap { UInt16($0) })
        let probe = KeepAliveClient(port: port)
        #expect(try await remotePID(probe) == server.processIdentifier)
        let compiled = "/compiled/hello?name=Bo"
        let load = RequestLoad(clients: 2, port: port, paths: ["/remote", compiled]) { path, answer in
            answer.status == 200 && (path == compiled ? answer.body == "Hello, Bo!\n" : answer.body.hasPrefix("remote "))
        }
        try await waitForAnswers(from: load, atLeast: 20)

        try place("own-process")
        kill(server.processIdentifier, SIGHUP)
        try await waitForLine(in: log, containing: "serving plugin routes", occurrence: 2, atMost: .seconds(60))
        let child = try #require(try await remotePID(probe))
        #expect(child != server.processIdentifier)
        #expect(children(of: server.processIdentifier) == [child])
        try await waitForAnswers(from: load, atLeast: load.answered + 20)

        try place("in-process")
        kill(server.processIdentifier, SIGHUP)
        try await waitForLine(in: log, containing: "serving plugin routes", occurrence: 3, atMost: .seconds(60))
        #expect(try await remotePID(probe) == server.processIdentifier)
        try await waitForAnswers(from: load, atLeast: load.answered + 20)

        let (counts, failed, failures) = try await load.finish()
        #expect(failed == 0, "\(failed) requests failed, the first: \(failures)")
        print("answered while the route moved out of the server's process and back: \(counts.values.reduce(0, +))")
        let moves = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasSuffix("plugin moved") && $0.contains("plugin=fixture-remote-route") }
        #expect(moves.count == 2 && moves.first?.contains("movedTo=own-process") == true
                && moves.last?.contains("movedTo=in-process") == true, "\(moves)")
        let deadline = ContinuousClock.now + .seconds(30)
        while !children(of: server.processIdentifier).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(children(of: server.processIdentifier).isEmpty)
        try await stopWithSigterm(server)
    }

    /// The child processes of `pid`, zombies included, from every thread's `children` file in /proc.
    private func children(of pid: Int32) -> [Int32] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.flatMap { thread in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    /// The pid `GET /remote` names now, or nil if it does not answer 200.
    private func remotePID(_ client: KeepAliveClient) async throws -> Int32? {
        let answer = try await onAThread { try client.get("/remote") }
        guard answer.status == 200, answer.body.hasPrefix("remote ") else { return nil }
        return Int32(answer.body.dropFirst("remote ".count).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
