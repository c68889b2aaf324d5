import Foundation
internal import DynamicLoading
@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors

/// The steps of a child's one plugin, done with the load pipeline's own code: what the child's
/// ``ChildControlService`` does when the host asks.
actor ChildPluginSteps {
    private let discovery: PluginDiscovery
    private let services: ChildServices
    private var plugin: LoadedPlugin?
    private var pipeline: LoadPipeline?
    private var published: ServiceLocator?
    /// The plugin registered and not started yet, with its module.
    private var registered: [(plugin: LoadedPlugin, module: ModuleHandle)] = []
    private var started: [StartedPlugin] = []
    /// The plugin's log, sent to the host's.
    private let log = ChildLogForwarder()
    /// The load request the process started with, loaded ahead of the host's asking (``preload()``);
    /// nil with an operator's file check (see ``PluginChild/serve(discovery:)``).
    private let ahead: ChildLoadRequest?
    /// The load done ahead (``preload()``): the file asked for and what it holds, until the host asks.
    private var preloaded: (candidate: PluginCandidate, description: ChildPluginDescription)?
    /// Made when the host asks for the calls the process serves (``register(logLevel:timesCalls:)``).
    private var servedCalls: ChildServedCallForwarder?

    /// The layers of the sandbox this process entered before it served; nil: none was asked for.
    private let sandbox: [SandboxLayer]?

    init(discovery: PluginDiscovery, services: ChildServices, sandbox: [SandboxLayer]?, ahead: ChildLoadRequest?) {
        self.discovery = discovery
        self.services = services
        self.sandbox = sandbox
        self.ahead = ahead
    }

    /// Loads the plugin of the process's request ahead of the host's asking, unless the host asked
    /// first: the host's ``load(_:)`` of the same file, or its ``loadedAhead()``, gets the plugin
    /// loaded. A load that failed is not kept (the host's load tries again: the cause may have
    /// passed, a full disk say).
    func preload() {
        guard let ahead, plugin == nil, pipeline == nil, preloaded == nil,
              let description = try? load(ahead) else { return }
        preloaded = (ahead.candidate, description)
    }

    /// What the load done ahead holds (loaded now if it was not yet), told once: the host
    /// then skips ``load(_:)``. Nil if this process loads nothing ahead, or its load failed.
    func loadedAhead() -> ChildPluginDescription? {
        preload()
        defer { preloaded = nil }
        return preloaded?.description
    }

    /// Opens and checks the plugin file the host checked, and says what it declares. Throws (a
    /// ``ChildRefusal``) if the file is not the one the host checked, or is refused. The plugin
    /// loaded ahead from the same file (``preload()``) is told, once.
    func load(_ request: ChildLoadRequest) throws(ChildRefusal) -> ChildPluginDescription {
        if let (candidate, description) = preloaded, candidate.realPath == request.candidate.realPath,
           candidate.identity == request.candidate.identity {
            preloaded = nil
            return description
        }
        guard plugin == nil else { throw ChildRefusal(description: "this process has loaded its plugin already") }
        // No start hooks in the stage: the host starts the plugin apart, once every plugin is registered.
        let pipeline = LoadPipeline(discovery: discovery, start: nil, logs: log, settings: ChildSettingsSource())
        self.pipeline = pipeline
        defer { pipeline.finish() }
        let path = request.candidate.realPath
        let candidate = try pipeline.discover(file: path).mapError { ChildRefusal(description: "\($0)") }.get()
        guard candidate.identity != nil, candidate.identity == request.candidate.identity else {
            throw ChildRefusal(description: "\(path): not the file the host checked (it changed since)")
        }
        let plugin = try pipeline.openUnprobed(candidate).mapError { ChildRefusal(description: "\($0)") }.get()
        self.plugin = plugin
        var description = ChildPluginDescription(plugin)
        description.sandbox = sandbox?.map(\.rawValue)
        return description
    }

    /// Registers the plugin's module on a locator that serves its requirements from the host; its
    /// log lines at `logLevel` or above go to the host, and with `timesCalls` the calls it serves.
    /// Throws (a ``ChildRefusal``) if it fails.
    func register(logLevel: String?, timesCalls: Bool) async throws {
        guard let plugin, let pipeline, published == nil else {
            throw ChildRefusal(description: "this process has no plugin loaded to register, or registered it already")
        }
        log.setLevel(logLevel.flatMap(PluginLog.Level.init(rawValue:)))
        if timesCalls, servedCalls == nil {
            let forwarder = ChildServedCallForwarder()
            forwarder.start()
            servedCalls = forwarder
        }
        let base = ServiceLocator()
        for required in plugin.metadata.requires {
            guard let stub = required.stubType else {
                throw ChildRefusal(description: "plugin '\(plugin.metadata.name)' requires \(required), which is not distributed: "
                                   + "it cannot be served to a process of its own")
            }
            let id = PluginActorID(peer: ChildServices.hostPeer, name: required.storeKey)
            do {
                try required.addProxySlot(to: base, origin: "host") { try PluginActorSystem.shared.proxy(of: stub, id: id) }
            } catch {
                throw ChildRefusal(description: "plugin '\(plugin.metadata.name)': \(required): \(error)")
            }
        }
        base.setReadOnly(denyClone: false)
        let staged = await onAThreadOfItsOwn {
            pipeline.stage([plugin], onto: base, after: [], registeredInProbe: [plugin.path], as: .allOrNothing(withdrawing: []))
        }
        // Its lines before its answer: a `host check` ends right after it.
        await log.flush()
        switch staged.result {
        case let .success(publication):
            published = publication.locator
            registered = publication.modules
            services.serve(publication.locator, provides: plugin.metadata.provides)
        case let .failure(failure):
            // The host's registration says which plugin failed and that nothing was registered.
            if case let .registrationFailed(_, reason) = failure.error { throw ChildRefusal(description: reason) }
            throw ChildRefusal(description: "\(failure.error)")
        }
    }

    /// Runs the registered plugin's start hook, bounded by `timeout`. Throws (a ``ChildRefusal``) if it fails.
    func start(timeout: Duration) async throws {
        guard let published, !registered.isEmpty, started.isEmpty else {
            throw ChildRefusal(description: "this process has no plugin registered to start, or started it already")
        }
        let registered = registered
        let (started, dropped) = await onAThreadOfItsOwn {
            PluginStart(timeout: timeout) { false }.run(registered, in: published, served: published)
        }
        // Its start hook's lines before the answer: a `host run` may stop it right after.
        await log.flush()
        if let failure = dropped.first { throw ChildRefusal(description: "\(failure.error)") }
        self.started = started
    }

    /// `body`'s value, run on a thread of its own: a stage blocks while hooks run, which must hold
    /// none of Swift concurrency's few threads.
    private func onAThreadOfItsOwn<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    /// Runs the plugin's shutdown hook, bounded by `timeout`; returns what went wrong, if anything.
    func stop(timeout: Duration) async -> String? {
        guard let published, !started.isEmpty else { return nil }
        let stopping = started
        started = []
        let report = await onAThreadOfItsOwn { PluginStop.run(stopping, in: published, timeout: timeout) }
        await log.flush()
        return report.problems.isEmpty ? nil : report.problems.map(\.summary).joined(separator: "; ")
    }
}
