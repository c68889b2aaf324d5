import Distributed
import DistributedRouteContracts
import Foundation
import HostKit
import PluginActors
import PluginAPI
import RouteContracts

/// The routes the plugins contributed, by method and normalized path: installed once the plugins are
/// loaded and again after each reload, read by every request. Plugin code (a handler, and the
/// handler's `method` and `path` and the slot's factory when the routes are installed) runs only on
/// threads of that plugin's own (``HandlerThreads``), under the handler timeout.
final class PluginRoutes: @unchecked Sendable {
    // @unchecked: `table`, `methodsByPath`, `threads` and `lastInstall` are only touched with `lock`
    // held; the rest is immutable.

    /// A method and a normalized path: what the table is looked up by.
    struct Key: Hashable, Sendable {
        let method: String
        let path: String
    }

    /// A plugin's route: its handler, the locator it was taken from, and the threads it runs on.
    struct Route: Sendable {
        let handler: any RouteHandler
        /// The slot that holds `handler`.
        let slot: String
        /// The slot's origin: the plugin's name.
        let plugin: String
        let threads: HandlerThreads
        /// The locator `handler` was taken from. Weak: a reload waits for the old locator's last
        /// holder before it stops the old version, and it returns (and the table is installed again)
        /// only after that; a table that held it would hold up every upgrade for the whole drain and
        /// then serve a stopped version. The request holds the locator instead (``Serving``).
        weak let locator: ServiceLocator?
    }

    /// What one request is served with, and the locator it holds until it is answered, so that the
    /// version it began on is not stopped under it.
    struct Serving: Sendable {
        /// The handler installed; nil if the route was installed from an older locator than
        /// `locator`: then the handler is what `locator` holds in `slot` now, if that still serves
        /// the route (taken on the plugin's threads: a factory, `method` and `path` are its code).
        let handler: (any RouteHandler)?
        let slot: String
        let plugin: String
        let threads: HandlerThreads
        let locator: ServiceLocator
    }

    /// The host whose current locator the routes are taken from.
    let host: PluginHost
    /// How long a request waits for a plugin's handler (and an install for a plugin's routes)
    /// before it is answered 503 (or the routes are refused).
    let handlerTimeout: Duration
    /// Threads per plugin: as many of its requests may block at once before the next ones wait.
    private let threadsPerPlugin: Int
    /// Guards the state below. Not Synchronization's Mutex, which ThreadSanitizer does not see
    /// through on Linux (ARCHITECTURE.md, "Locks, and why none is a Mutex").
    private let lock = NSLock()
    /// The routes; nil until the first install. Swapped whole, so a request sees one install's table.
    private var table: [Key: Route]?
    /// The methods each path is served with, by the server or a plugin, as the last install left
    /// them, by normalized path. `HEAD` wherever `GET` is.
    private var methodsByPath: [String: Set<String>] = [:]
    /// Each plugin's threads, by plugin name, as the last install left them.
    private var threads: [String: HandlerThreads] = [:]
    /// The install last begun: the next one waits for it, so that an older locator's routes are
    /// never installed last.
    private var lastInstall: Task<Installation, Never>?

    init(host: PluginHost, handlerTimeout: Duration, threadsPerPlugin: Int = 4) {
        self.host = host
        self.handlerTimeout = handlerTimeout
        self.threadsPerPlugin = threadsPerPlugin
    }

    /// A route a plugin claimed that the server or another plugin serves already.
    struct Refusal {
        /// `METHOD path`, as the plugin's handler says.
        let route: String
        /// The slot of the refused handler, and its plugin.
        let slot: String, plugin: String
        /// The plugin that serves the route, or "the server".
        let servedBy: String
    }

    /// A route slot whose handler could not be taken: why, untrusted text escaped.
    struct Unusable {
        let slot: String, plugin: String
        let problem: String
    }

    /// What ``install(serverRoutes:renewing:)`` did.
    struct Installation: Sendable {
        /// `METHOD path` of each route installed, sorted.
        var routes: [String] = []
        var refused: [Refusal] = []
        var unusable: [Unusable] = []
    }

    /// Takes every slot of the host's current locator that holds a route handler, except a route
    /// whose methods (``RouteClaims``) `serverRoutes` (`METHOD path`, the server's own) or an earlier
    /// slot has, and swaps the table in. The locator lists its slots sorted by key, so of two plugins
    /// claiming one route, the one whose slot key sorts first keeps it, whatever the order of the
    /// files. Each plugin's handlers, and their methods and paths, are taken on its threads, all the
    /// plugins at once, each within the handler timeout: a plugin whose code does not answer by then
    /// has its routes refused, and the others are served.
    ///
    /// A plugin keeps its threads from one install to the next, unless it is in `renewing` (it was
    /// upgraded or restarted): then its new version gets threads of its own, and the old ones are
    /// retired, to end once the calls begun on them are done. So a version whose handlers are stuck
    /// leaves the threads stuck with it behind, and 100 upgrades leave no more threads than one.
    func install(serverRoutes: [String], renewing: Set<String> = []) async -> Installation {
        let install = lock.withLock {
            let previous = lastInstall
            let install = Task {
                _ = await previous?.value
                return await self.installNow(serverRoutes: serverRoutes, renewing: renewing)
            }
            lastInstall = install
            return install
        }
        return await install.value
    }

    /// What a plugin's route slot gave, read on the plugin's threads.
    private enum SlotRead: Sendable {
        case route(any RouteHandler, method: String, path: String)
        case unusable(String)
    }

    private func installNow(serverRoutes: [String], renewing: Set<String>) async -> Installation {
        let locator = host.locator
        var slotsByPlugin: [String: [String]] = [:]
        for slot in locator.slots where Self.routeTypes.contains(slot.serviceType) {
            slotsByPlugin[slot.origin ?? "(no plugin)", default: []].append(slot.key)
        }
        var kept = lock.withLock { threads.filter { !renewing.contains($0.key) } }
        var pluginThreads: [String: HandlerThreads] = [:]
        for plugin in slotsByPlugin.keys {
            pluginThreads[plugin] = kept.removeValue(forKey: plugin) ?? newThreads()
        }
        let reads = await Self.read(slotsByPlugin, of: locator, on: pluginThreads)

        var claims = Self.claims(of: serverRoutes)
        var routes: [Key: Route] = [:]
        var servingPlugins: Set<String> = []
        var installation = Installation()
        for slot in locator.slots where Self.routeTypes.contains(slot.serviceType) {
            let plugin = slot.origin ?? "(no plugin)"
            switch reads[slot.key] {
            case let .route(handler, method, path)?:
                if let owner = claims.claim(method: method, path: path, by: plugin) {
                    installation.refused.append(Refusal(route: "\(method) \(path)", slot: slot.key, plugin: plugin, servedBy: owner))
                    continue
                }
                guard let threads = pluginThreads[plugin] else { continue }  // each plugin read has threads
                servingPlugins.insert(plugin)
                routes[Key(method: method, path: RouteSyntax.normalized(path))] =
                    Route(handler: handler, slot: slot.key, plugin: plugin, threads: threads, locator: locator)
            case let .unusable(problem)?:
                installation.unusable.append(Unusable(slot: slot.key, plugin: plugin, problem: problem))
            case nil:
                installation.unusable.append(Unusable(slot: slot.key, plugin: plugin, problem: "not read"))
            }
        }
        // A plugin none of whose routes is served keeps no threads (a stuck read ends with them).
        let readOn = pluginThreads.values
        pluginThreads = pluginThreads.filter { servingPlugins.contains($0.key) }
        let replaced = lock.withLock {
            table = routes
            methodsByPath = claims.methodsByPath
            defer { threads = pluginThreads }
            return Array(threads.values)
        }
        for old in replaced + readOn where !pluginThreads.values.contains(where: { $0 === old }) {
            old.retire()
        }
        installation.routes = routes.keys.map { "\($0.method) \($0.path)" }.sorted()
        return installation
    }

    private func newThreads() -> HandlerThreads {
        HandlerThreads(count: threadsPerPlugin, maxWaiting: 16 * threadsPerPlugin, timeout: handlerTimeout)
    }

    /// Reads each plugin's route slots on its threads, the plugins at once: a slot's handler, its
    /// method and path, checked. A plugin that does not answer within the timeout has its slots
    /// unusable, and so has each slot that throws or gives a method or path the server cannot serve.
    private static func read(_ slotsByPlugin: [String: [String]], of locator: ServiceLocator,
                             on threads: [String: HandlerThreads]) async -> [String: SlotRead] {
        await withTaskGroup(of: [String: SlotRead].self) { group in
            for (plugin, slots) in slotsByPlugin {
                guard let threads = threads[plugin] else { continue }
                group.addTask {
                    let outcome = await threads.run(holding: locator) { () async -> [String: SlotRead] in
                        var reads: [String: SlotRead] = [:]
                        for slot in slots { reads[slot] = await readSlot(slot, of: locator) }
                        return reads
                    }
                    let timeout = threads.timeout
                    switch outcome {
                    case let .answered(reads): return reads
                    case let .failed(problem): return Dictionary(uniqueKeysWithValues: slots.map { ($0, .unusable(problem)) })
                    case .timedOut: return Dictionary(uniqueKeysWithValues: slots.map { ($0, .unusable("the plugin's code did not give its routes within \(timeout)")) })
                    case .busy: return Dictionary(uniqueKeysWithValues: slots.map { ($0, .unusable("the plugin's threads are taken")) })
                    }
                }
            }
            return await group.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
        }
    }

    /// The service types of route slots: a plain handler's, and a distributed one's (served in this
    /// process or from a process of its own).
    static let routeTypes: Set<String> = [String(reflecting: (any RouteHandler).self),
                                          String(reflecting: (any DistributedRouteHandler).self)]

    /// The handler in `slot` of `locator` (run on the plugin's threads): a plain one as it is, a
    /// distributed one as a ``DistributedRoute``, its route asked of it now.
    static func routeHandler(inSlot slot: String, of locator: ServiceLocator) async throws -> any RouteHandler {
        guard locator.slotInfo(forKey: slot)?.serviceType == String(reflecting: (any DistributedRouteHandler).self) else {
            return try locator.tryService(key: ServiceLocatorEasyKey<any RouteHandler>(name: slot))
        }
        let key = DistributedServiceEasyKey<any DistributedRouteHandler, $DistributedRouteHandler<PluginActorSystem>>(name: slot)
        return try await DistributedRoute(locator.tryService(key: key))
    }

    /// One slot's handler, method and path (run on the plugin's threads).
    private static func readSlot(_ slot: String, of locator: ServiceLocator) async -> SlotRead {
        let handler: any RouteHandler
        do {
            handler = try await routeHandler(inSlot: slot, of: locator)
        } catch {
            return .unusable(TerminalText.escaped(String(describing: error)))
        }
        let (method, path) = (handler.method, handler.path)
        guard RouteSyntax.isMethod(method) else {
            return .unusable("method '\(TerminalText.escaped(method))' is not an HTTP method (a token)")
        }
        guard RouteSyntax.isPath(path) else {
            return .unusable("path '\(TerminalText.escaped(path))' is not a path ('/' first, visible ASCII, no '?' or '#')")
        }
        return .route(handler, method: method, path: path)
    }

    /// Makes the server's own routes (`METHOD path`) known before the first install, so that they
    /// are answered while the plugins load: ``methods(serving:)`` names their methods from now on.
    func announce(serverRoutes: [String]) {
        let claims = Self.claims(of: serverRoutes)
        lock.withLock { if table == nil { methodsByPath = claims.methodsByPath } }
    }

    /// The claims of the server's own routes, `METHOD path`.
    private static func claims(of serverRoutes: [String]) -> RouteClaims {
        var claims = RouteClaims()
        for route in serverRoutes {
            let method = String(route.prefix { $0 != " " })
            claims.take(method: method, path: String(route.dropFirst(method.count + 1)), by: "the server")
        }
        return claims
    }

    /// The methods `path` is served with, sorted (`HEAD` wherever `GET` is); empty for a path nobody
    /// serves.
    func methods(serving path: String) -> [String] {
        let path = RouteSyntax.normalized(path)
        return lock.withLock { methodsByPath[path] ?? [] }.sorted()
    }

    /// What serves `method` `path`: nil before the first install, `.some(nil)` if no plugin serves it.
    ///
    /// The host's current locator is taken first, and the request holds it until it is answered. A
    /// route installed from that locator is served as installed; one installed before a reload
    /// swapped the locator (its table is installed again once the reload is done) is served with what
    /// the current locator holds in its slot now, if that still serves this route
    /// (``handler(for:)``): the new version of an upgraded plugin, none of a withdrawn one.
    func serving(method: String, path: String) -> Serving?? {
        let locator = host.locator
        let key = Key(method: method, path: RouteSyntax.normalized(path))
        guard let route = lock.withLock({ table.map { $0[key] } }) else { return nil }
        guard let route else { return .some(nil) }
        return Serving(handler: route.locator === locator ? route.handler : nil, slot: route.slot, plugin: route.plugin,
                       threads: route.threads, locator: locator)
    }

    /// The handler that serves `key` for `serving` (run on the plugin's threads): the one installed,
    /// or what the locator holds in the route's slot now if it still serves `key`; nil if none does.
    static func handler(for serving: Serving, key: Key) async -> (any RouteHandler)? {
        if let handler = serving.handler { return handler }
        guard let handler = try? await routeHandler(inSlot: serving.slot, of: serving.locator),
              Key(method: handler.method, path: RouteSyntax.normalized(handler.path)) == key else { return nil }
        return handler
    }
}
