import Foundation
import Testing

/// Where `swift build` put the server and the plugins: beside this test bundle.
let builtProducts: URL = {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    return URL(fileURLWithPath: executable).deletingLastPathComponent()
}()

/// The library of the product `product`: a fixture route plugin's (named "Fixture...") from where the
/// build tool plugin BuildFixtures built them (the package Tests/PluginFixtures), any other's from
/// ``builtProducts``.
func builtLibrary(_ product: String) -> URL {
    (product.hasPrefix("Fixture") ? URL(fileURLWithPath: builtFixturesFolder) : builtProducts)
        .appendingPathComponent("lib\(product).so")
}

/// A suite that starts the built server (`plugin-server`) on a loopback port with route plugins in a
/// folder of its own, asks it with curl and waits for what it logs.
protocol BuiltServer {}

extension BuiltServer {
    /// A new folder holding lib<name>.so of each of `plugins`, and the libraries they link (those of the
    /// distributed route contract only beside the distributed route fixture: a library no plugin links
    /// would be a file refused).
    func pluginFolder(_ plugins: [String]) throws -> URL {
        let files = FileManager.default
        let folder = files.temporaryDirectory.appendingPathComponent("plugin-server-\(UUID().uuidString)")
        try files.createDirectory(at: folder, withIntermediateDirectories: false)
        let distributed = plugins.contains("FixtureRemoteRoute") ? ["DistributedRouteContracts", "PluginActors"] : []
        for name in plugins + ["RouteContracts", "PluginAPI"] + distributed {
            try files.copyItem(at: builtLibrary(name),
                               to: folder.appendingPathComponent("lib\(name).so"))
        }
        return folder
    }

    /// Starts the server on a free loopback port with the plugins in `folder` (the fixtures active, and
    /// `environment` beside), logging to server.log there; returns once it serves the plugins' routes.
    func startServer(plugins folder: URL, _ options: [String] = [],
                     environment: [String: String] = [:]) async throws -> (server: Process, log: URL, base: String) {
        try await startServer(["--plugins", folder.path] + options, logIn: folder, environment: environment)
    }

    /// Starts the server on a free loopback port with `arguments` (the fixtures active, and
    /// `environment` beside), logging to server.log in `folder`; returns once it serves the plugins'
    /// routes, or, given the line that names its port (`accepting on`, `listening on`), once it has
    /// written that line.
    func startServer(_ arguments: [String], logIn folder: URL, awaiting line: String? = nil,
                     environment: [String: String] = [:]) async throws -> (server: Process, log: URL, base: String) {
        let log = folder.appendingPathComponent("server.log")
        let server = try start(builtProducts.appendingPathComponent("plugin-server").path,
                               ["--port", "0"] + arguments, log: log,
                               environment: environment.merging(["PLUGIN_SERVER_FIXTURES": "1"]) { $1 })
        do {
            let port = try await waitForLine(in: log, startingWith: "\(line ?? "listening on") 127.0.0.1:")
            if line == nil { try await waitForLine(in: log, containing: "serving plugin routes") }
            return (server, log, "http://127.0.0.1:\(port)")
        } catch {
            server.terminate()
            throw error
        }
    }

    /// GET `url` with curl: the status and the body.
    func get(_ url: String) async throws -> (status: Int, body: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let curl = try start("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", url], log: output)
        try await waitForExit(curl)
        let text = try String(contentsOf: output, encoding: .utf8)
        let status = text.split(separator: "\n").last.flatMap { Int($0) } ?? 0
        let body = text.hasSuffix("\n\(status)") ? String(text.dropLast("\n\(status)".count)) : text
        return (status, body)
    }

    /// Stops `server` with SIGTERM and expects it to exit 0.
    func stopWithSigterm(_ server: Process) async throws {
        kill(server.processIdentifier, SIGTERM)
        try await waitForExit(server)
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)
    }

    /// `method` `url` with curl, with `headers` (`Name: value`) and `body`: the status, the response's
    /// headers (names lowercased) and its body (for HEAD, what curl wrote there: the head again).
    func request(_ method: String, _ url: String, headers: [String] = [],
                 body: String? = nil) async throws -> (status: Int, headers: [String: String], body: String) {
        let files = FileManager.default
        let name = "curl-\(UUID().uuidString)"
        let (head, output, status) = (files.temporaryDirectory.appendingPathComponent("\(name).head"),
                                      files.temporaryDirectory.appendingPathComponent("\(name).body"),
                                      files.temporaryDirectory.appendingPathComponent("\(name).status"))
        defer { for file in [head, output, status] { try? files.removeItem(at: file) } }
        let how = method == "HEAD" ? ["--head"] : ["-X", method]
        let curl = try start("/usr/bin/curl", ["-s", "-D", head.path, "-o", output.path, "-w", "%{http_code}"] + how
                                 + headers.flatMap { ["-H", $0] } + (body.map { ["--data-binary", $0] } ?? []) + [url],
                             log: status)
        try await waitForExit(curl)
        var fields: [String: String] = [:]
        for line in try String(contentsOf: head, encoding: .utf8).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return (Int(try String(contentsOf: status, encoding: .utf8)) ?? 0, fields, text)
    }

    /// Runs `executable` with `arguments` to its end: its exit status, what it wrote to stdout and
    /// what to stderr.
    func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let files = FileManager.default
        let (out, err) = (files.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).out"),
                          files.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).err"))
        defer { for file in [out, err] { try? files.removeItem(at: file) } }
        for file in [out, err] where !files.createFile(atPath: file.path, contents: nil) {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        try await waitForExit(process)
        return (process.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }

    func start(_ executable: String, _ arguments: [String], log: URL,
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

    func waitForExit(_ process: Process, atMost limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            try #require(ContinuousClock.now < deadline, "\(process.executableURL?.lastPathComponent ?? "?") did not exit")
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits for the `occurrence`th line of `log` that starts with `prefix`; returns the rest of it.
    @discardableResult
    func waitForLine(in log: URL, startingWith prefix: String = "", containing text: String = "",
                     occurrence: Int = 1, atMost limit: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while true {
            let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
            // (`contains("")` is false: an empty `text` asks for nothing.)
            let matching = lines.filter { $0.hasPrefix(prefix) && (text.isEmpty || $0.contains(text)) }
            if matching.count >= occurrence {
                return String(matching[occurrence - 1].dropFirst(prefix.count))
            }
            try #require(ContinuousClock.now < deadline, "no line \(occurrence) '\(prefix)…\(text)' in \(lines.suffix(5))")
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
