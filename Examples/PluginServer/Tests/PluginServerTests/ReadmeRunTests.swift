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
        #expect(object?["plugins"] as? [String] == ["counter", "hello-route", "visits-route"], "\(listing.body)")
        #expect(try await get("\(base)/hello?name=Ada") == (200, "Hello, Ada!\n"))
        try await stopWithSigterm(server)
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
