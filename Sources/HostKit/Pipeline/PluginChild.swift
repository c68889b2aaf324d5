import Dispatch
import Distributed
internal import DynamicLoading
import Foundation
@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors

/// The process a host starts for one plugin placed in a process of its own (``PluginProcesses``):
/// it opens, checks and registers that plugin through the same steps as the host's load
/// (`LoadPipeline`), runs its hooks, and serves its services to the host over the socket the host
/// gave it (descriptor 3). What the plugin requires is served by the host over the same socket.
///
/// The child program calls ``serve(discovery:)`` (the `host` command does so for `host __serve-plugin`)
/// with the same trust options as the host, and exits with what it returns.
public enum PluginChild {
    /// Serves the host on descriptor 3 until the host closes the connection (then returns 0), or
    /// returns 2 if there is no such connection. Nothing of a plugin runs before the host asks.
    public static func serve(discovery: PluginDiscovery = PluginDiscovery()) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let milliseconds = environment[childCallTimeoutVariable].flatMap(Int64.init) ?? 30_000
        Posix.removeEnvironment(childCallTimeoutVariable)
        let services = ChildServices()
        let control = ChildControlService(actorSystem: .shared, discovery: discovery, services: services)
        let hostGone = DispatchSemaphore(value: 0)
        do {
            _ = try PluginActorSystem.shared.connect(
                peer: ChildServices.hostPeer, socket: ChildProcess.socketDescriptor,
                callTimeout: .milliseconds(milliseconds),
                serve: { name in
                    if name == pluginChildControlName { return control }
                    return try await services.service(named: name)
                },
                endReason: {
                    hostGone.signal()
                    return "the host closed the connection"
                })
        } catch {
            FileHandle.standardError.write(Data("no connection to the host on descriptor \(ChildProcess.socketDescriptor): \(error)\n".utf8))
            return 2
        }
        // The connection holds its own duplicate: the plugin finds no socket at the number it was given.
        close(ChildProcess.socketDescriptor)
        hostGone.wait()
        return 0
    }
}

/// The child's published locator: what the host's calls reach, by store key.
final class ChildServices: Sendable {
    /// The name the child knows its host by.
    static let hostPeer = "host"

    private let locator = Lock<ServiceLocator?>(nil)

    /// From now on, calls reach the services of `published`.
    func serve(_ published: ServiceLocator) {
        locator.withLock { $0 = published }
    }

    /// The distributed actor in the slot `name`, made if it was not.
    func service(named name: String) async throws -> any DistributedActor {
        guard let published = locator.withLock({ $0 }) else {
            throw ChildRefusal(description: "the plugin is not started yet")
        }
        let service = try await published.anyService(storeKey: name)
        guard let actor = service as? any DistributedActor else {
            throw ChildRefusal(description: "the service '\(name)' is not a distributed actor")
        }
        return actor
    }
}

/// What the child serves the host under ``pluginChildControlName``: the steps of its one plugin's load.
distributed actor ChildControlService: PluginChildControl {
    typealias ActorSystem = PluginActorSystem

    private let discovery: PluginDiscovery
    private let services: ChildServices
    private var plugin: LoadedPlugin?
    private var pipeline: LoadPipeline?
    private var published: ServiceLocator?
    private var started: [StartedPlugin] = []

    init(actorSystem: PluginActorSystem, discovery: PluginDiscovery, services: ChildServices) {
        self.actorSystem = actorSystem
        self.discovery = discovery
        self.services = services
    }

    distributed func load(_ request: ChildLoadRequest) throws -> ChildPluginDescription {
        guard plugin == nil else { throw ChildRefusal(description: "this process has loaded its plugin already") }
        let pipeline = LoadPipeline(discovery: discovery, start: PluginStart(timeout: request.startTimeout) { false })
        self.pipeline = pipeline
        defer { pipeline.finish() }
        let path = request.candidate.realPath
        let candidate = try pipeline.discover(file: path).mapError { ChildRefusal(description: "\($0)") }.get()
        guard candidate.identity != nil, candidate.identity == request.candidate.identity else {
            throw ChildRefusal(description: "\(path): not the file the host checked (it changed since)")
        }
        let plugin = try pipeline.openUnprobed(candidate).mapError { ChildRefusal(description: "\($0)") }.get()
        self.plugin = plugin
        return ChildPluginDescription(plugin)
    }

    distributed func start(timeout: Duration) async throws {
        guard let plugin, let pipeline, published == nil else {
            throw ChildRefusal(description: "this process has no plugin loaded to start, or started it already")
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
        // The stage blocks while hooks run: on a thread of its own, not one of the few of Swift concurrency.
        let staged = await withCheckedContinuation { (continuation: CheckedContinuation<LoadPipeline.Staged, Never>) in
            Thread.detachNewThread {
                continuation.resume(returning: pipeline.stage([plugin], onto: base, after: [], registeredInProbe: [plugin.path],
                                                              as: .allOrNothing(withdrawing: [])))
            }
        }
        switch staged.result {
        case let .success(publication):
            published = publication.locator
            started = publication.started
            services.serve(publication.locator)
        case let .failure(failure):
            throw ChildRefusal(description: "\(failure.error)")
        }
    }

    distributed func stop(timeout: Duration) async -> String? {
        guard let published, !started.isEmpty else { return nil }
        let stopping = started
        started = []
        let report = await withCheckedContinuation { (continuation: CheckedContinuation<ShutdownReport, Never>) in
            Thread.detachNewThread {
                continuation.resume(returning: PluginStop.run(stopping, in: published, timeout: timeout))
            }
        }
        return report.problems.isEmpty ? nil : report.problems.map(\.summary).joined(separator: "; ")
    }

    distributed func ping() {}
}

extension ChildPluginDescription {
    /// What `plugin` declares, in names that cross a process.
    init(_ plugin: LoadedPlugin) {
        let key = { (declared: DeclaredKey) in
            Key(storeKey: declared.storeKey, keyType: declared.keyTypeName, text: declared.description)
        }
        self.init(name: plugin.metadata.name, version: plugin.metadata.version, provides: plugin.metadata.provides.map(key),
                  requires: plugin.metadata.requires.map(key),
                  libraries: plugin.libraries.map { Library(name: $0.name, version: $0.encoded) })
    }
}
