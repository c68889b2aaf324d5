import Foundation
import Testing

/// The built example server, started on a loopback port with the route plugins in a folder, asked
/// with curl, then stopped with SIGTERM.
@Suite struct ServerTests: BuiltServer {
    @Test(.timeLimit(.minutes(5)))
    func pluginRoutesAnswerAndSigtermFinishesInFlightRequestsThenStopsThePlugins() async throws {
        // The plugins as people lay them out: with the libraries they link beside them, and one bad file.
        let folder = try pluginFolder(["HelloRoutePlugin", "CounterPlugin", "VisitsRoutePlugin"])
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a library".utf8).write(to: folder.appendingPathComponent("libBroken.so"))
        // A handler timeout far past the slow request's 3 s below, however late its sleep wakes.
        let (server, log, base) = try await startServer(plugins: folder, ["--handler-timeout", "60"])
        defer { if server.isRunning { server.terminate() } }

        #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"))
        #expect(try await get("\(base)/visits") == (200, "visit 1\n"), "the visits route counts with the counter plugin's service")
        #expect(try await get("\(base)/visits") == (200, "visit 2\n"))
        #expect(try await get("\(base)/compiled/hello?name=Bo") == (200, "Hello, Bo!\n"))
        #expect(try await get("\(base)/nothing").status == 404)
        let introspection = try await get("\(base)/plugins")
        let object = try JSONSerialization.jsonObject(with: Data(introspection.body.utf8)) as? [String: Any]
        #expect(object?["plugins"] as? [String] == ["counter", "hello-route", "visits-route"], "\(introspection.body)")
        let slots = (object?["slots"] as? [[String: String]] ?? []).map { $0["key"] ?? "" }
        #expect(slots == ["example.counter", "route.echo", "route.hello", "route.visits"])
        let started = try String(contentsOf: log, encoding: .utf8)
        #expect(started.contains("libBroken.so") && started.contains("plugin refused"), "the bad file is logged and skipped")

        // A request in flight when SIGTERM arrives is answered; then the plugins stop, in reverse order.
        // SIGTERM is sent once the server has read the request, which answers 3 s later.
        let port = try #require(base.split(separator: ":").last.flatMap { UInt16($0) })
        let slow = KeepAliveClient(port: port)
        try await onAThread { try slow.sendWaitingUntilRead("/hello?name=Slow&delay=3000", atMost: .seconds(60)) }
        kill(server.processIdentifier, SIGTERM)
        let answer = try await onAThread { try slow.answer() }
        #expect(answer == .init(status: 200, body: "Hello, Slow!\n"), "\(answer)")
        try await waitForExit(server)
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let stopped = lines.filter { $0.hasSuffix("plugin shut down") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("plugin=") }.map { String($0.dropFirst("plugin=".count)) }
        }
        #expect(stopped == ["visits-route", "hello-route", "counter"], "\(lines.suffix(6))")
    }

    @Test(.timeLimit(.minutes(2)))
    func aRouteTheServerOrAnotherPluginServesIsRefusedAndLogged() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureConflictRoutes"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }

        for path in ["/plugins", "/plugins/"] {
            let introspection = try await get("\(base)\(path)")
            let object = try? JSONSerialization.jsonObject(with: Data(introspection.body.utf8)) as? [String: Any]
            #expect(object?["plugins"] as? [String] == ["fixture-conflict-routes", "hello-route"],
                    "\(path) is the server's: \(introspection.body)")
        }
        #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"), "route.hello sorts before route.hello-too")
        #expect(try await get("\(base)/fixture/free") == (200, "fixture-conflict-routes\n"), "a route nobody else serves is served")

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        for (route, owner) in [("GET /plugins", "the server"), ("GET /plugins/", "the server"), ("GET /hello", "hello-route")] {
            #expect(lines.contains { line in
                line.contains(" error ") && line.hasSuffix("plugin route refused: served already")
                    && line.contains(" route=\(route) ") && line.contains(" plugin=fixture-conflict-routes ")
                    && line.contains(" servedBy=\(owner) ")
            }, "\(route) of fixture-conflict-routes refused, served by \(owner): \(lines)")
        }
        #expect(lines.contains { $0.hasSuffix("serving plugin routes") && $0.contains("routes=GET /fixture/free, GET /fixture/slashed, GET /hello, POST /echo ") })
        kill(server.processIdentifier, SIGTERM)
        try await waitForExit(server)
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
    }

    /// The blocking plugin's handlers block until the test opens their gate (they ignore
    /// cancellation): the other routes are asked while every one of its threads blocks, and answer;
    /// each /block request is answered 503 at the handler timeout, its handler blocking still.
    @Test(.timeLimit(.minutes(5)))
    func aBlockingPluginHandlerTimesOutWith503AndTheOtherRoutesKeepAnswering() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureBlockingRoute"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let gate = folder.appendingPathComponent("gate"), entered = folder.appendingPathComponent("gate.entered")
        let openGate = { _ = FileManager.default.createFile(atPath: gate.path, contents: nil) }
        let (server, log, base) = try await startServer(plugins: folder, ["--handler-timeout", "1"],
                                                        environment: ["PLUGIN_SERVER_FIXTURE_GATE": gate.path])
        defer {
            openGate()
            if server.isRunning { server.terminate() }
        }

        // More handlers blocking at once than the blocking plugin has threads (4), and than this machine
        // has cores (the width of Swift's cooperative pool, where they used to run).
        let blocking = max(6, ProcessInfo.processInfo.activeProcessorCount + 2)
        let curls = try (0..<blocking).map { index in
            try start("/usr/bin/curl", ["-s", "--max-time", "60", "-w", "\n%{http_code}", "\(base)/block"],
                      log: folder.appendingPathComponent("block-\(index).log"))
        }
        // Until each of the plugin's 4 threads blocks in a handler (each says so in gate.entered).
        let deadline = ContinuousClock.now + .seconds(60)
        while ((try? String(contentsOf: entered, encoding: .utf8)) ?? "").split(separator: "\n").count < 4 {
            try #require(ContinuousClock.now < deadline, "the blocking plugin's threads did not all take a /block request")
            try await Task.sleep(for: .milliseconds(20))
        }
        let expected: [(path: String, body: String?)] =
            [("/compiled/hello?name=Bo", "Hello, Bo!\n"), ("/plugins", nil), ("/hello?name=Ada", "Hello, Ada!\n")]
        for (path, body) in expected {
            let answer = try await get("\(base)\(path)")
            #expect(answer.status == 200 && (body == nil || answer.body == body), "\(path): \(answer)")
        }
        // Answered while the handlers block: by the timeout, not by the handlers (curl gives up at 60 s).
        for curl in curls { try await waitForExit(curl, atMost: .seconds(90)) }
        openGate()
        for index in 0..<blocking {
            let answer = try String(contentsOf: folder.appendingPathComponent("block-\(index).log"), encoding: .utf8)
            #expect(answer == "plugin route timed out\n\n503", "\(answer)")
        }
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.hasSuffix("plugin route timed out") && $0.contains("plugin=fixture-blocking-route") }.count == blocking)
        kill(server.processIdentifier, SIGTERM)
        try await waitForExit(server)
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func aPathServedWithOtherMethodsOnlyAnswers405WithAllowOptionsWithItAndAnUnknownPath404() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "CounterPlugin", "VisitsRoutePlugin"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, _, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }

        // A plugin's route, the server's own, and the server's with an empty segment.
        for (method, path) in [("POST", "/hello"), ("DELETE", "/visits"), ("POST", "/plugins"), ("PUT", "/compiled/hello"), ("POST", "/plugins/")] {
            let answer = try await request(method, "\(base)\(path)", body: "x")
            #expect(answer.status == 405, "\(method) \(path): \(answer)")
            #expect(answer.headers["allow"] == "GET, HEAD, OPTIONS", "\(method) \(path): \(answer.headers)")
            let options = try await request("OPTIONS", "\(base)\(path)")
            #expect(options.status == 204 && options.headers["allow"] == "GET, HEAD, OPTIONS", "OPTIONS \(path): \(options)")
        }
        #expect(try await request("OPTIONS", "\(base)/echo").headers["allow"] == "POST, OPTIONS")
        #expect(try await request("POST", "\(base)/nothing", body: "x").status == 404)
        #expect(try await request("GET", "\(base)/nothing").status == 404)
        #expect(try await request("GET", "\(base)/hello?name=Ada").body == "Hello, Ada!\n")
        // HEAD is served as GET is (without the body), for a plugin's route as for the server's.
        for path in ["/hello", "/plugins"] {
            let head = try await request("HEAD", "\(base)\(path)")
            #expect(head.status == 200 && head.headers["content-type"] != nil, "HEAD \(path): \(head)")
        }
        try await stopWithSigterm(server)
    }

    @Test(.timeLimit(.minutes(2)))
    func aPluginRouteReadsTheRequestsHeadersAndBodyAndABodyOverTheLimitIsAnswered413() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, _, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }

        let echo = try await request("POST", "\(base)/echo", headers: ["Content-Type: text/csv"], body: "a,b\nc,é")
        #expect(echo.status == 200 && echo.body == "a,b\nc,é", "\(echo)")
        #expect(echo.headers["content-type"] == "text/csv", "the route read the request's Content-Type: \(echo.headers)")
        // A field given twice, in other cases than the route asks for, comes twice and in order.
        let traced = try await request("POST", "\(base)/echo?header=X-Trace", headers: ["x-trace: one", "X-TRACE: two"], body: "")
        #expect(traced.status == 200 && traced.body == "one\ntwo\n", "\(traced)")

        // Bytes that are not UTF-8 reach the plugin as bytes (it refuses them as text); a body over the
        // server's upload limit (2 MiB) is answered 413 before the plugin is called.
        let binary = folder.appendingPathComponent("binary"), large = folder.appendingPathComponent("large")
        try Data([0x61, 0xFF, 0xFE]).write(to: binary)
        try Data(repeating: 0x61, count: 3 << 20).write(to: large)
        let refused = try await request("POST", "\(base)/echo", body: "@\(binary.path)")
        #expect(refused.status == 415 && refused.body == "the body is not UTF-8 text\n", "\(refused)")
        #expect(try await request("POST", "\(base)/echo", body: "@\(large.path)").status == 413)
        #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"), "the server still answers")
        try await stopWithSigterm(server)
    }

    @Test(.timeLimit(.minutes(2)))
    func pluginsListsEachStartedPluginWithItsVersionAndFileAlsoAfterAReload() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureRouteOne"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }
        let real = folder.resolvingSymlinksInPath().path

        func listed() async throws -> (names: [String]?, files: [[String: String]]?, body: String) {
            let body = try await get("\(base)/plugins").body
            let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            return (object?["plugins"] as? [String], object?["pluginFiles"] as? [[String: String]], body)
        }
        var (names, files, body) = try await listed()
        #expect(names == ["fixture-versioned-route", "hello-route"], "the names as before: \(body)")
        #expect(files == [
            ["name": "fixture-versioned-route", "version": "1.0.0", "path": "\(real)/libFixtureRouteOne.so"],
            ["name": "hello-route", "version": "1.1.0", "path": "\(real)/libHelloRoutePlugin.so"],
        ], "\(body)")

        // An upgrade and a withdrawal, then SIGHUP.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("libHelloRoutePlugin.so"))
        try FileManager.default.copyItem(at: builtLibrary("FixtureRouteTwo"),
                                         to: folder.appendingPathComponent("libFixtureRouteTwo.so.new"))
        guard rename(folder.appendingPathComponent("libFixtureRouteTwo.so.new").path,
                     folder.appendingPathComponent("libFixtureRouteOne.so").path) == 0 else { throw POSIXError(.EIO) }
        kill(server.processIdentifier, SIGHUP)
        try await waitForLine(in: log, containing: "serving plugin routes", occurrence: 2)
        (names, files, body) = try await listed()
        #expect(names == ["fixture-versioned-route"], "\(body)")
        #expect(files == [["name": "fixture-versioned-route", "version": "2.0.0", "path": "\(real)/libFixtureRouteOne.so"]], "\(body)")
        try await stopWithSigterm(server)
    }

    /// No `--plugins`, an empty folder, a folder that is not there.
    @Test(.timeLimit(.minutes(2)), arguments: ["none", "empty", "missing"])
    func withNoPluginFoundTheServerWarnsWhereItLookedAndServesItsOwnRoutes(_ case: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plugins = `case` == "empty" ? folder.appendingPathComponent("plugins") : folder.appendingPathComponent("nothing-here")
        if `case` == "empty" { try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: false) }
        let (server, log, base) = try await startServer(`case` == "none" ? [] : ["--plugins", plugins.path], logIn: folder)
        defer { if server.isRunning { server.terminate() } }

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let lookedIn = `case` == "none" ? "nowhere (no --plugins given)" : "'\(plugins.path)'"
        #expect(lines.contains { $0.contains(" warning ") && $0.hasSuffix("no plugin found: serving the server's own routes only")
                                 && $0.contains("lookedIn=\(lookedIn)") }, "\(lines)")
        #expect(try await get("\(base)/compiled/hello?name=Bo") == (200, "Hello, Bo!\n"))
        #expect(try await get("\(base)/hello").status == 404)
        let object = try JSONSerialization.jsonObject(with: Data(try await get("\(base)/plugins").body.utf8)) as? [String: Any]
        #expect(object?["plugins"] as? [String] == [])
        try await stopWithSigterm(server)
    }
}
