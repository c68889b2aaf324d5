import Foundation
import Testing

/// GET /metrics: the host's counts of its plugins (HostKit's PluginMetrics through swift-metrics),
/// scraped in Prometheus' text format from the built server.
@Suite struct ServerMetricsTests: BuiltServer {
    @Test(.timeLimit(.minutes(2)))
    func theHostsCountsOfItsPluginsAreScrapedInPrometheusText() async throws {
        let folder = try pluginFolder(["HelloRoutePlugin", "CounterPlugin", "VisitsRoutePlugin"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, _, base) = try await startServer(plugins: folder)
        defer { if server.isRunning { server.terminate() } }
        #expect(try await get("\(base)/visits") == (200, "visit 1\n"))
        #expect(try await get("\(base)/visits") == (200, "visit 2\n"))

        let scrape = try await get("\(base)/metrics")
        #expect(scrape.status == 200)
        let lines = scrape.body.split(separator: "\n").map(String.init)
        // Each plugin's start hook, timed, by plugin and outcome.
        for plugin in ["counter", "hello-route", "visits-route"] {
            #expect(lines.contains { $0.hasPrefix("plugin_hook_duration_count{") && $0.contains("plugin=\"\(plugin)\"")
                                     && $0.contains("hook=\"start\"") && $0.contains("outcome=\"finished\"") && $0.hasSuffix(" 1") },
                    "\(plugin): \(scrape.body)")
        }
        // The gets of each route plugin's slot, which the server makes to install its routes.
        #expect(lines.contains { $0.hasPrefix("plugin_service_gets_total{") && $0.contains("plugin=\"visits-route\"")
                                 && $0.contains("key=\"route.visits\"") }, "\(scrape.body)")
    }
}
