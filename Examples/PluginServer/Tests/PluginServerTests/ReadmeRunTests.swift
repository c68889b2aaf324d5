import Foundation
import Testing

/// The server as its README runs it: on the build folder, asked as soon as it says it listens.
@Suite struct ReadmeRunTests: BuiltServer {
    @Test(.timeLimit(.minutes(10)))
    func theBuildFolderTheReadmeLoadsHoldsOnlyTheExamplesRoutePlugins() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, _, base) = try await startServer(["--plugins", builtProducts.path], logIn: folder)
        defer { if server.isRunning { server.terminate() } }

        let listing = try await get("\(base)/plugins")
        let object = try JSONSerialization.jsonObject(with: Data(listing.body.utf8)) as? [String: Any]
        #expect(object?["plugins"] as? [String] == ["counter", "hello-route", "pid-route", "visits-route"], "\(listing.body)")
        #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"))
        #expect(try await get("\(base)/pid") == (200, "served by process \(server.processIdentifier)\n"))
        try await stopWithSigterm(server)
    }

    /// The README's own-process command, as it says it: the distributed route answers from a child,
    /// and the folder's libraries (the contract library and PluginActors, which that plugin links)
    /// are no error on the way.
    @Test(.timeLimit(.minutes(10)))
    func theReadmesOwnProcessCommandServesThePidRouteFromAChild() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log, base) = try await startServer(["--plugins", builtProducts.path, "--own-process", "libPidRoutePlugin.so"],
                                                        logIn: folder)
        defer { if server.isRunning { server.terminate() } }

        let answer = try await get("\(base)/pid")
        #expect(answer.status == 200, "\(answer)")
        let pid = answer.body.hasPrefix("served by process ") ? Int32(answer.body.dropFirst(18).dropLast()) : nil
        #expect(pid != nil && pid != server.processIdentifier, "served by the server itself, not a child: \(answer.body)")
        try await stopWithSigterm(server)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(!lines.contains { $0.contains("error") || $0.contains("refused") }, "\(lines)")
    }

    @Test(.timeLimit(.minutes(10)))
    func listeningIsWrittenOnlyOnceThePluginRoutesAreInstalled() async throws {
        // The blocking plugin holds the install for the handler timeout (5 s, below the 15 s it blocks,
        // and room for HelloRoute's own answers on a busy machine): long enough that a request sent on
        // an early line would find no plugin route.
        let folder = try pluginFolder(["HelloRoutePlugin", "FixtureBlockingPath"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log, base) = try await startServer(["--handler-timeout", "5", "--plugins", folder.path], logIn: folder,
                                                        awaiting: "listening on")
        defer { if server.isRunning { server.terminate() } }

        #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"), "the first request after the line")
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let accepting = lines.firstIndex { $0.hasPrefix("accepting on 127.0.0.1:") }
        let serving = lines.firstIndex { $0.hasSuffix("serving plugin routes") }
        let listening = lines.firstIndex { $0.hasPrefix("listening on 127.0.0.1:") }
        #expect(accepting != nil && serving != nil && listening != nil, "\(lines)")
        if let accepting, let serving, let listening {
            #expect(accepting < listening && serving < listening, "\(lines)")
        }
        try await stopWithSigterm(server)
    }
}
