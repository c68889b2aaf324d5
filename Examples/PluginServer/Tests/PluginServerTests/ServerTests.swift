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
        let files = FileManager.default
        let folder = files.temporaryDirectory.appendingPathComponent("plugin-server-\(UUID().uuidString)")
        try files.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? files.removeItem(at: folder) }
        // The plugins as people lay them out: with the libraries they link beside them, and one bad file.
        for name in ["HelloRoutePlugin", "CounterPlugin", "VisitsRoutePlugin", "RouteContracts", "PluginAPI"] {
            try files.copyItem(at: Self.buildFolder.appendingPathComponent("lib\(name).so"),
                               to: folder.appendingPathComponent("lib\(name).so"))
        }
        try Data("not a library".utf8).write(to: folder.appendingPathComponent("libBroken.so"))

        let log = folder.appendingPathComponent("server.log")
        let server = try start(Self.buildFolder.appendingPathComponent("plugin-server").path,
                               ["--port", "0", "--plugins", folder.path], log: log)
        defer { if server.isRunning { server.terminate() } }
        let port = try await waitForLine(in: log, startingWith: "listening on 127.0.0.1:")
        try await waitForLine(in: log, containing: "serving plugin routes")
        let base = "http://127.0.0.1:\(port)"

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

    private func start(_ executable: String, _ arguments: [String], log: URL) throws -> Process {
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
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
