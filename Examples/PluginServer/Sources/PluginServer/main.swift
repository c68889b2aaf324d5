import Foundation
import HelloRoute
import HostKit
import Hummingbird
import Logging
import PluginHostLifecycle
import PluginHostMetrics
import Prometheus
import RouteContracts
import ServiceLifecycle

// plugin-server [--host 127.0.0.1] [--port 8080] [--handler-timeout 5] [--plugins PATH]... [--own-process FILE]...
// [--config FILE] (--help: ServerOptions;
// README.md: how to build, run and ask it)
// Loads the route plugins from PATH (a folder of *.so, or a file) at start-up, serves their routes, and
// on SIGTERM or SIGINT finishes the requests in flight, then shuts the plugins down in reverse order.
// On SIGHUP it reloads the plugins (new files added, a file renamed over a plugin's upgrades it, a
// plugin whose file is gone is withdrawn) and installs their routes again; a request in flight
// finishes on the version it began on, which stops only then.
// Each plugin's code runs on a few threads of that plugin's own (HandlerThreads): its route handlers,
// and the reads of its routes (a handler's method and path) when they are installed. So a plugin that
// blocks stops neither the server's routes nor the other plugins'; a request its plugin's handler has
// not answered within --handler-timeout seconds (10 ms to a day) is answered 503, a plugin whose routes
// are not read by then has them refused. What a handler answers is checked before it is sent: a status
// out of range or a header value that is not one is answered 500 and logged (PluginRouteMiddleware).
// The server's own executable is the child of a plugin placed in a process of its own (--own-process):
// then it serves that plugin to its parent server, and nothing else (HostKit's PluginChild).
if CommandLine.arguments.dropFirst().first == ServerOptions.serveOnePluginArgument {
    exit(PluginChild.serve())
}

let options: ServerOptions
switch ServerOptions.parse(Array(CommandLine.arguments.dropFirst())) {
case let .run(parsed):
    options = parsed
case .help:
    FileHandle.standardOutput.write(Data(ServerOptions.usage.utf8))
    exit(0)
case let .wrong(problem):
    FileHandle.standardError.write(Data("plugin-server: \(problem)\nsee plugin-server --help\n".utf8))
    exit(2)
}
let paths = options.paths

let logger = Logger(label: "plugin-server")
// The plugins named by --own-process each run in a child of their own, this executable: a crash of
// one fails its routes (500) while the child is restarted, never the server.
// What the host counts of its plugins (each slot's gets and services made, hooks, reloads, restarts),
// kept in a Prometheus registry and served at GET /metrics.
let registry = PrometheusCollectorRegistry()
let metrics = SwiftMetricsPluginMetrics(factory: PrometheusMetricsFactory(registry: registry))
// The plugins' settings and placements (--config), read again at each reload.
let settings: PluginSettingsFile?
do {
    settings = try options.config.map(PluginSettingsFile.init(contentsOf:))
} catch {
    FileHandle.standardError.write(Data("plugin-server: \(TerminalText.escaped(String(describing: error)))\n".utf8))
    exit(2)
}
let host = PluginHost(processes: options.pluginProcesses(), metrics: metrics, settings: settings) { line in
    logger.warning("plugin process", metadata: ["event": "\(line)"])
}
let routes = PluginRoutes(host: host, handlerTimeout: .seconds(options.handlerTimeout))

// HEAD is served wherever GET is, without the body (plugin routes too: PluginRouteMiddleware).
let router = Router(options: .autoGenerateHeadEndpoints)
router.add(middleware: PluginRouteMiddleware(routes: routes))
// The same handler compiled into the server, to measure what a plugin route costs beside it.
let compiledHello = HelloRoute(path: "/compiled/hello")
router.get("/compiled/hello") { request, context in
    try await Response(compiledHello.handle(RouteRequest(request, bodyLimit: context.maxUploadSize)))
}
// The version and file of each plugin, as the load and reload reports tell.
let pluginFiles = PluginFiles()
// What is loaded: the plugins (names, then each with its version and file) and every slot, as JSON.
router.get("/plugins") { _, _ in
    let slots = host.locator.slots.map { ["key": $0.key, "type": $0.serviceType, "plugin": $0.origin ?? ""] }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let started = host.startedPlugins
    let json = try encoder.encode(Introspection(plugins: started, pluginFiles: pluginFiles.describe(started), slots: slots))
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: json)))
}

// The host's counts of its plugins, in Prometheus' text format.
router.get("/metrics") { _, _ in
    Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
             body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
}

// The server's own routes, `METHOD path` (read after the last one is added): a plugin that claims one
// of them is refused.
let serverRoutes = router.routes.map { "\($0.method) \($0.path)" }
routes.announce(serverRoutes: serverRoutes)

struct Introspection: Encodable {
    /// The started plugins' names.
    let plugins: [String]
    /// The same plugins, each with its version and file.
    let pluginFiles: [PluginFiles.File]
    let slots: [[String: String]]
}

/// Fills the route table from the host's current locator, logging what was refused and what is served.
/// The plugins in `renewing` (upgraded or restarted by a reload) get new handler threads.
func installRoutes(renewing: Set<String> = []) async {
    let installed = await routes.install(serverRoutes: serverRoutes, renewing: renewing)
    for refusal in installed.refused {
        logger.error("plugin route refused: served already", metadata: [
            "route": "\(refusal.route)", "plugin": "\(refusal.plugin)", "slot": "\(refusal.slot)",
            "servedBy": "\(refusal.servedBy)",
        ])
    }
    for unusable in installed.unusable {
        logger.error("plugin route unusable", metadata: [
            "slot": "\(unusable.slot)", "plugin": "\(unusable.plugin)", "problem": "\(unusable.problem)",
        ])
    }
    logger.info("serving plugin routes", metadata: ["routes": "\(installed.routes.joined(separator: ", "))"])
}

// Each reload (SIGHUP) is logged, then the routes are installed again from the new locator.
let plugins = PluginHostService(host: host, sources: paths.map(PluginSource.path), logger: logger) { report in
    pluginFiles.record(report)
    let renewed: Set<ReloadReport.Action> = [.upgraded, .restarted, .reconfigured, .moved]
    await installRoutes(renewing: Set(report.entries.filter { renewed.contains($0.action) }.map(\.plugin)))
}

// "listening on" only once the plugins' routes are installed too (the server's own answer before).
let readiness = ReadinessLines()

/// Fills the route table once the plugins are loaded. With no plugin found (no --plugins, an empty or
/// missing folder) it warns first, naming where it looked; the server serves its own routes.
struct RouteInstaller: Service {
    func run() async throws {
        let report = await plugins.loaded()
        pluginFiles.record(report)
        if report.loaded.isEmpty {
            let lookedIn = paths.isEmpty ? "nowhere (no --plugins given)" : paths.map { "'\($0)'" }.joined(separator: ", ")
            logger.warning("no plugin found: serving the server's own routes only", metadata: [
                "lookedIn": "\(TerminalText.escaped(lookedIn))",
            ])
        }
        await installRoutes()
        readiness.routesInstalled()
        try? await gracefulShutdown()
    }
}

let listeningAddress = options.address
let app = Application(
    router: router,
    configuration: .init(address: .hostname(options.address, port: options.port)),
    // Shut down in reverse order: the server first (requests in flight finish), then the plugins.
    services: [plugins, RouteInstaller()],
    onServerRunning: { channel in
        // Connections are served only once this returns: it must not wait for the plugins.
        readiness.serverBound(at: "\(listeningAddress):\(channel.localAddress?.port.map(String.init) ?? "?")")
    },
    logger: logger
)
try await app.runService()
