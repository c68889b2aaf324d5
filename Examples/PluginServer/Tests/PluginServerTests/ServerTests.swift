import Foundation
import Testing

/// The built example server, started on a loopback port with the route plugins in a folder, asked
/// with curl, then stopped with SIGTERM.
@Suite struct ServerTests {
    /// Where `swift build` put the server and the plugins: beside this test bundle.
    static let buildFolder: URL = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }()

    @Test(.timeLimit(.minutes(2)))
    func pluginRoutesAnswerAndSigtermFinishesInFlightRequestsThenStopsThePlugins() async throws {
        // The plugins as people lay them out: with the libraries they link beside them, and one bad file.
        let folder = try pluginFolder(["HelloRoutePlugin", "CounterPlugin", "VisitsRoutePlugin"])
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a library".utf8).write(to: folder.appendingPathComponent("libBroken.so"))
        let (server, log, base) = try await startServer(plugins: folder)
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
        #expect(slots == ["example.counter", "route.hello", "route.visits"])
        let started = try String(contentsOf: log, encoding: .utf8)
        #expect(started.contains("libBroken.so") && started.contains("plugin refused"), "the bad file is logged and skipped")

        // A request in flight when SIGTERM arrives is answered; then the plugins stop, in reverse order.
        let slow = try start("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "\(base)/hello?name=Slow&delay=1500"],
                             log: folder.appendingPathComponent("slow.log"))
        try await Task.sleep(for: .milliseconds(400))
        kill(server.processIdentifier, SIGTERM)
        try await waitForExit(slow)
        let answer = try String(contentsOf: folder.appendingPathComponent("slow.log"), encoding: .utf8)
        #expect(answer == "Hello, Slow!\n\n200", "\(answer)")
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
        #expect(lines.contains { $0.hasSuffix("serving plugin routes") && $0.contains("routes=GET /fixture/free, GET /hello ") })
        kill(server.processIdentifier, SIGTERM)
        try await waitForExit(server)
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func aBlockingPluginHandlerTimesOutWith503AndTheOtherRoutesKeepAnswering() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureBlockingRoute"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log, base) = try await startServer(plugins: folder, ["--handler-timeout", "1"])
        defer { if server.isRunning { server.terminate() } }

        // More handlers blocking at once than the blocking plugin has threads (4), and than this machine
        // has cores (the width of Swift's cooperative pool, where they used to run).
        let blocking = max(6, ProcessInfo.processInfo.activeProcessorCount + 2)
        let sent = ContinuousClock.now
        let curls = try (0..<blocking).map { index in
            try start("/usr/bin/curl", ["-s", "--max-time", "30", "-w", "\n%{http_code}", "\(base)/block"],
                      log: folder.appendingPathComponent("block-\(index).log"))
        }
        try await Task.sleep(for: .milliseconds(300))
        let expected: [(path: String, body: String?)] =
            [("/compiled/hello?name=Bo", "Hello, Bo!\n"), ("/plugins", nil), ("/hello?name=Ada", "Hello, Ada!\n")]
        for (path, body) in expected {
            let asked = ContinuousClock.now
            let answer = try await get("\(base)\(path)")
            let took = ContinuousClock.now - asked
            #expect(answer.status == 200 && (body == nil || answer.body == body), "\(path): \(answer)")
            #expect(took < .seconds(1), "\(path) took \(took) while /block handlers block")
        }
        for curl in curls { try await waitForExit(curl, atMost: .seconds(40)) }
        let answered = ContinuousClock.now - sent
        for index in 0..<blocking {
            let answer = try String(contentsOf: folder.appendingPathComponent("block-\(index).log"), encoding: .utf8)
            #expect(answer == "plugin route timed out\n\n503", "\(answer)")
        }
        #expect(answered < .seconds(8), "answered after the 1 s timeout, not after the 10 s handler: \(answered)")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.hasSuffix("plugin route timed out") && $0.contains("plugin=fixture-blocking-route") }.count == blocking)
        kill(server.processIdentifier, SIGTERM)
        try await waitForExit(server)
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
    }

    /// A new folder holding lib<name>.so of each of `plugins`, and the libraries they link.
    private func pluginFolder(_ plugins: [String]) throws -> URL {
        let files = FileManager.default
        let folder = files.temporaryDirectory.appendingPathComponent("plugin-server-\(UUID().uuidString)")
        try files.createDirectory(at: folder, withIntermediateDirectories: false)
        for name in plugins + ["RouteContracts", "PluginAPI"] {
            try files.copyItem(at: Self.buildFolder.appendingPathComponent("lib\(name).so"),
                               to: folder.appendingPathComponent("lib\(name).so"))
        }
        return folder
    }

    /// Starts the server on a free loopback port with the plugins in `folder` (the fixtures active),
    /// logging to server.log there; returns once it serves the plugins' routes.
    private func startServer(plugins folder: URL, _ options: [String] = []) async throws -> (server: Process, log: URL, base: String) {
        let log = folder.appendingPathComponent("server.log")
        let server = try start(Self.buildFolder.appendingPathComponent("plugin-server").path,
                               ["--port", "0", "--plugins", folder.path] + options, log: log,
                               environment: ["PLUGIN_SERVER_FIXTURES": "1"])
        do {
            let port = try await waitForLine(in: log, startingWith: "listening on 127.0.0.1:")
            try await waitForLine(in: log, containing: "serving plugin routes")
            return (server, log, "http://127.0.0.1:\(port)")
        } catch {
            server.terminate()
            throw error
        }
    }

    /// GET `url` with curl: the status and the body.
    private func get(_ url: String) async throws -> (status: Int, body: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let curl = try start("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", url], log: output)
        try await waitForExit(curl)
        let text = try String(contentsOf: output, encoding: .utf8)
        let status = text.split(separator: "\n").last.flatMap { Int($0) } ?? 0
        let body = text.hasSuffix("\n\(status)") ? String(text.dropLast("\n\(status)".count)) : text
        return (status, body)
    }

    private func start(_ executable: String, _ arguments: [String], log: URL,
                       environment: [String: String] = [:]) throws -> Process {
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return process
    }

    private func waitForExit(_ process: Process, atMost limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            try #require(ContinuousClock.now < deadline, "\(process.executableURL?.lastPathComponent ?? "?") did not exit")
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits for a line of `log` that starts with `prefix`; returns the rest of it.
    @discardableResult
    private func waitForLine(in log: URL, startingWith prefix: String = "", containing text: String = "",
                             atMost limit: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while true {
            let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
            // (`contains("")` is false: an empty `text` asks for nothing.)
            if let line = lines.first(where: { $0.hasPrefix(prefix) && (text.isEmpty || $0.contains(text)) }) {
                return String(line.dropFirst(prefix.count))
            }
            try #require(ContinuousClock.now < deadline, "no line '\(prefix)…\(text)' in \(lines.suffix(5))")
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
