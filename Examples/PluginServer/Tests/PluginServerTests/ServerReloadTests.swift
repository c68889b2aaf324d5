import Foundation
import Testing

/// The built server reloading its plugins on SIGHUP while it serves: route plugins deployed,
/// upgraded and withdrawn in its plugins folder as an operator would (a new file renamed over the old
/// path, a file removed), each followed by a SIGHUP.
@Suite struct ServerReloadTests: BuiltServer {
    /// The versioned route fixture's file in the plugins folder (FixtureRouteOne or FixtureRouteTwo).
    let versionedFile = "libFixtureVersionedRoute.so"

    /// 100 upgrades of `/versioned`'s plugin, alternating its two versions, while two clients ask
    /// for it and for the compiled-in `/compiled/hello` without a pause: every request is answered,
    /// each `/versioned` by one version or the other, never an error, a 404 or a 5xx. After each
    /// reload the route answers from the version just deployed, and the replaced versions' handler
    /// threads end (the server has no more threads after 100 upgrades than after one).
    @Test(.timeLimit(.minutes(10)))
    func aRoutePluginUpgradedAHundredTimesUnderLoadAnswersEveryRequest() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(versionedFile)
        try deploy("FixtureRouteOne", to: file)
        let (server, log, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }
        let port = try #require(base.split(separator: ":").last.flatMap { UInt16($0) })
        let probe = KeepAliveClient(port: port)
        #expect(try await onAThread { try probe.get("/versioned") } == .init(status: 200, body: "version 1\n"))

        let hello = "/compiled/hello?name=Bo"
        let load = RequestLoad(clients: 2, port: port, paths: ["/versioned", hello]) { path, answer in
            answer.status == 200 && (path == hello ? answer.body == "Hello, Bo!\n" : ["version 1\n", "version 2\n"].contains(answer.body))
        }
        try await waitForAnswers(from: load, atLeast: 20)
        try await upgrade(1, to: 2, in: folder, of: server, log: log, probe: probe)
        let threadsAfterOne = try threads(of: server)
        for round in 2...100 {
            try await upgrade(round, to: round % 2 == 0 ? 1 : 2, in: folder, of: server, log: log, probe: probe)
        }
        try await waitForAnswers(from: load, atLeast: load.answered + 20)
        let (counts, failed, failures) = try await load.finish()
        #expect(failed == 0, "\(failed) requests failed, the first: \(failures)")
        #expect(counts.keys.sorted() == ["/compiled/hello?name=Bo 200 \"Hello, Bo!\\n\"",
                                         "/versioned 200 \"version 1\\n\"", "/versioned 200 \"version 2\\n\""], "\(counts)")
        print("answered under 100 upgrades: \(counts)")

        // The threads of the last version replaced end once idle (the bound only keeps a failure from hanging).
        let deadline = ContinuousClock.now + .seconds(60)
        while try threads(of: server) > threadsAfterOne + 8, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try threads(of: server) <= threadsAfterOne + 8, "100 upgrades left threads behind")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count { $0.hasSuffix("plugin upgraded") && $0.contains("plugin=fixture-versioned-route") } == 100)
        #expect(!lines.contains { $0.contains(" error ") }, "\(lines.filter { $0.contains(" error ") }.prefix(5))")
        kill(server.processIdentifier, SIGTERM)
        try await waitForExit(server)
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
        try expectNoSanitizerReport(in: log)
    }

    /// A plugin's file removed, then SIGHUP: its route answers 404 once the reload is done, and the
    /// request it had in flight is answered first (the reload waits for it before it stops the
    /// plugin); the other plugins' routes and the server's still answer. A file added, then SIGHUP:
    /// its route is served.
    @Test(.timeLimit(.minutes(5)))
    func aWithdrawnRoutePluginsRouteAnswers404AndAnAddedOnesRouteIsServed() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "CounterPlugin", "VisitsRoutePlugin"])
        defer { try? FileManager.default.removeItem(at: folder) }
        // A handler timeout far past the slow request's 5 s below, however late its sleep wakes.
        let (server, log, base) = try await startServer(plugins: folder, ["--handler-timeout", "60"])
        defer { if server.isRunning { server.terminate() } }
        #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"))
        #expect(try await get("\(base)/versioned").status == 404)

        // The file goes and SIGHUP comes once the server has read the request, which answers 5 s after
        // it was sent: a reload that waits for it cannot be done sooner, however busy the machine (one
        // that does not wait is done as soon as it can be).
        let port = try #require(base.split(separator: ":").last.flatMap { UInt16($0) })
        let slow = KeepAliveClient(port: port)
        let sent = ContinuousClock.now
        try await onAThread { try slow.sendWaitingUntilRead("/hello?name=Slow&delay=5000", atMost: .seconds(60)) }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("libHelloRoutePlugin.so"))
        kill(server.processIdentifier, SIGHUP)
        try await waitForLine(in: log, containing: "serving plugin routes", occurrence: 2)
        let reloaded = ContinuousClock.now - sent
        let answer = try await onAThread { try slow.answer() }
        #expect(answer == .init(status: 200, body: "Hello, Slow!\n"), "the request in flight is answered: \(answer)")
        #expect(reloaded >= .seconds(5), "the reload waited for the request in flight: done \(reloaded) after it was sent")
        #expect(try await get("\(base)/hello?name=Ada").status == 404)
        #expect(try await get("\(base)/visits") == (200, "visit 1\n"))
        #expect(try await get("\(base)/compiled/hello?name=Bo") == (200, "Hello, Bo!\n"))
        var lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.hasSuffix("plugin withdrawn") && $0.contains("plugin=hello-route") })
        #expect(lines.last { $0.hasSuffix("serving plugin routes") }?.contains("routes=GET /visits ") == true)

        try deploy("FixtureRouteTwo", to: folder.appendingPathComponent(versionedFile))
        kill(server.processIdentifier, SIGHUP)
        try await waitForLine(in: log, containing: "serving plugin routes", occurrence: 3)
        #expect(try await get("\(base)/versioned") == (200, "version 2\n"))
        #expect(try await get("\(base)/visits") == (200, "visit 2\n"))
        lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.hasSuffix("plugin added") && $0.contains("plugin=fixture-versioned-route") })
        kill(server.processIdentifier, SIGTERM)
        try await waitForExit(server)
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
        try expectNoSanitizerReport(in: log)
    }

    /// Deploys `version` over the versioned route's file, sends SIGHUP, waits for the reload's routes
    /// (the `round + 1`th install) and asks the route once.
    private func upgrade(_ round: Int, to version: Int, in folder: URL, of server: Process, log: URL,
                         probe: KeepAliveClient) async throws {
        try deploy(version == 1 ? "FixtureRouteOne" : "FixtureRouteTwo", to: folder.appendingPathComponent(versionedFile))
        kill(server.processIdentifier, SIGHUP)
        try await waitForLine(in: log, containing: "serving plugin routes", occurrence: round + 1, atMost: .seconds(60))
        let answer = try await onAThread { try probe.get("/versioned") }
        #expect(answer == .init(status: 200, body: "version \(version)\n"), "after upgrade \(round)")
    }

    /// A server built with a sanitizer writes its reports to its log (and exits 66 after one).
    private func expectNoSanitizerReport(in log: URL) throws {
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(!text.contains("Sanitizer"), "\(text.split(separator: "\n").filter { $0.contains("Sanitizer") }.prefix(3))")
    }

    /// The server's threads now.
    private func threads(of server: Process) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(server.processIdentifier)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
        return try #require(line.flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) })
    }
}
