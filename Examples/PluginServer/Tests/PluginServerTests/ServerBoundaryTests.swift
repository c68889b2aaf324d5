import Foundation
import Testing

/// The built server as the boundary to its plugins: every value a plugin hands it is checked where it
/// crosses, plugin code runs only on the plugin's threads under the timeout (also while the routes
/// are installed), and a route is judged on every method the server answers for its path.
@Suite struct ServerBoundaryTests: BuiltServer {
    @Test(.timeLimit(.minutes(2)))
    func aPluginAnswerTheServerCannotSendIsAnswered500AndLoggedAndTheServerKeepsServing() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureBadAnswers"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }

        let problems = [
            "/fixture/status-1000": "status 1000 is not from 200 to 599",
            "/fixture/status-99": "status 99 is not from 200 to 599",
            "/fixture/content-type-crlf": "Content-Type 'text/plain\\r\\nSet-Cookie: injected=1' is not a header field value",
            "/fixture/content-type-nul": "Content-Type 'text/plain\\0' is not a header field value",
        ]
        for (path, _) in problems.sorted(by: { $0.key < $1.key }) + [("/fixture/throws", "")] {
            let answer = try await request("GET", "\(base)\(path)")
            #expect(answer.status == 500 && answer.body == "plugin route failed\n", "\(path): \(answer)")
            #expect(answer.headers["set-cookie"] == nil, "\(path): nothing of the plugin's header is sent: \(answer.headers)")
            #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"), "the server still serves after \(path)")
        }
        #expect(try await get("\(base)/fixture/fine") == (200, "fixture-bad-answers\n"))
        #expect(try await request("HEAD", "\(base)/fixture/status-1000").status == 500)
        #expect(server.isRunning)

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        for (path, problem) in problems {
            #expect(lines.contains { line in
                line.contains(" error ") && line.hasSuffix("plugin route answered what cannot be sent")
                    && line.contains(" route=GET \(path) ") && line.contains(" plugin=fixture-bad-answers ")
                    && line.contains("problem=\(problem)")
            }, "\(path): \(problem): \(lines.suffix(12))")
        }
        #expect(lines.contains { $0.hasSuffix("plugin route failed") && $0.contains("error=fixture error \\u{1B}[2J") },
                "a thrown error is logged, its text escaped: \(lines.suffix(12))")
        // A method or a path that is not one is refused when the routes are installed.
        for (slot, problem) in [("route.fixture-bad-method", "method 'GET /x HTTP/1.1\\r\\n' is not an HTTP method"),
                                ("route.fixture-bad-path", "path 'fixture/no-slash' is not a path")] {
            #expect(lines.contains { $0.hasSuffix("plugin route unusable") && $0.contains("slot=\(slot) ") && $0.contains(problem) },
                    "\(slot): \(lines.filter { $0.contains("unusable") })")
        }
        try await stopWithSigterm(server)
    }

    @Test(.timeLimit(.minutes(2)))
    func aPluginWhoseRoutePathBlocksStopsNeitherTheServersRoutesNorTheOtherPlugins() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureBlockingPath"])
        defer { try? FileManager.default.removeItem(at: folder) }
        // Bound: the plugins' routes are not installed yet ("listening on" waits for them). The handler
        // timeout is below the 15 s the blocking plugin takes, with room for HelloRoute's own answers
        // on a busy machine.
        let (server, log, base) = try await startServer(["--handler-timeout", "5", "--plugins", folder.path], logIn: folder,
                                                        awaiting: "accepting on")
        defer { if server.isRunning { server.terminate() } }

        // The server's own routes answer at once, also while the plugins' routes are being installed.
        #expect(try await get("\(base)/compiled/hello?name=Bo") == (200, "Hello, Bo!\n"))
        #expect(try await get("\(base)/plugins").status == 200)
        // The other plugin's route is served once the install is done, the blocking plugin's read given
        // up after the handler timeout (not awaited for the 15 s the property takes: the log says so).
        try await waitForLine(in: log, containing: "serving plugin routes")
        #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"))
        #expect(try await get("\(base)/fixture/blocking-path").status == 404, "the blocking plugin's route is refused")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { line in
            line.contains(" error ") && line.hasSuffix("plugin route unusable") && line.contains(" plugin=fixture-blocking-path ")
                && line.contains("problem=the plugin's code did not give its routes within 5.0 seconds")
        }, "\(lines.suffix(6))")
        #expect(lines.last { $0.hasSuffix("serving plugin routes") }?.contains("routes=GET /hello, POST /echo ") == true)
        try await stopWithSigterm(server)
    }

    @Test(.timeLimit(.minutes(2)))
    func aPluginRouteTakingHEADOrOPTIONSOfAServedPathIsRefusedAndLoggedAndSlashesAreOneRule() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureConflictRoutes"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        for (route, owner) in [("HEAD /hello", "hello-route"), ("OPTIONS /hello/", "hello-route"),
                               ("HEAD /plugins", "the server"), ("OPTIONS /compiled/hello", "the server")] {
            #expect(lines.contains { line in
                line.contains(" error ") && line.hasSuffix("plugin route refused: served already")
                    && line.contains(" route=\(route) ") && line.contains(" plugin=fixture-conflict-routes ")
                    && line.contains(" servedBy=\(owner) ")
            }, "\(route) of fixture-conflict-routes refused, served by \(owner): \(lines.suffix(12))")
        }
        // The owners answer those methods: HEAD as GET without the body, OPTIONS with what is served.
        let head = try await request("HEAD", "\(base)/hello")
        #expect(head.status == 200 && head.headers["content-type"] == "text/plain; charset=utf-8", "\(head)")
        for path in ["/hello", "/compiled/hello"] {
            let options = try await request("OPTIONS", "\(base)\(path)")
            #expect(options.status == 204 && options.headers["allow"] == "GET, HEAD, OPTIONS", "OPTIONS \(path): \(options)")
        }
        // Empty segments do not count, for a plugin's routes as for the server's: a route is served with a
        // slash added or taken away, and one declared with a slash last is served without it.
        for path in ["/fixture/free/", "//fixture/free", "/fixture/slashed", "/fixture/slashed/"] {
            #expect(try await get("\(base)\(path)") == (200, "fixture-conflict-routes\n"), "\(path)")
        }
        #expect(try await get("\(base)/hello/?name=Ada") == (200, "Hello, Ada!\n"))
        #expect(try await get("\(base)/plugins/").status == 200)
        try await stopWithSigterm(server)
    }
}
