import Dispatch
import Distributed
internal import DynamicLoading
@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors

/// What the host serves one plugin's process (``PluginProcess``), by name: the services its plugin
/// declared it requires, each under its contract, once the host started the plugin; its settings
/// (``HostSettingsService``); the host's log (``HostLogService``). Nothing else of the host is
/// reachable from the child. It outlives the process's restarts: a new child is served the same.
final class PluginProcessServices: Sendable {
    private struct Served {
        /// The keys the plugin declared it requires, with their contracts' stubs: the only services
        /// of the host its process may call, and the only methods it may call on each.
        var requires: [String: any DistributedActor.Type] = [:]
        /// What the plugin's requirements are served from, once the host started it.
        var services: ServiceResolver?
        /// The plugin's settings as the host serves them to its process, once it is started.
        var settings: HostSettingsService?
        /// The host's log as this plugin's process writes to it (nil for a host that keeps no plugin logs).
        var log: HostLogService?
        /// Where this plugin's process tells the calls it served (nil for a host that keeps none).
        var calls: HostServedCallService?
    }

    private let served = Lock(Served())
    /// Where the plugin's lines are written, in order (``HostLogService``'s writer).
    private let logWriter = DispatchQueue(label: "plugin log")
    /// Where the calls it served are recorded, in order (``HostServedCallService``'s writer).
    private let callWriter = DispatchQueue(label: "plugin served calls")

    /// The plugin's process said what it declares: its requirements are served by their
    /// contracts, and its log lines reach `logs` and the calls it served `calls`, under the name and
    /// version the host read.
    func declare(_ metadata: PluginMetadata, logs: (any PluginLogHandler)?, calls: (any PluginServedCallRecorder)?) {
        let contracts = metadata.requires.compactMap { key in key.stubType.map { (key.storeKey, $0) } }
        let log = logs.map { HostLogService(actorSystem: .shared, plugin: metadata.name, version: metadata.version, handler: $0,
                                        writer: logWriter) }
        let calls = calls.map { HostServedCallService(actorSystem: .shared, plugin: metadata.name, version: metadata.version,
                                                      provides: Set(metadata.provides.map(\.storeKey)), recorder: $0,
                                                      writer: callWriter) }
        served.withLock { served in
            served.requires = Dictionary(contracts) { first, _ in first }
            served.log = log
            served.calls = calls
        }
    }

    /// The host starts the plugin: its requirements come from `services`, and so do its settings
    /// (those lent to its registration here: the child reads through them).
    func lend(_ services: ServiceResolver) {
        let settings = HostSettingsService(actorSystem: .shared, settings: services.settings)
        served.withLock { served in
            served.services = services
            served.settings = settings
        }
    }

    /// Returns once the lines the plugin's process sent so far are written, or after
    /// ``logDrainBound``: the host's step that the child answered after its lines (register, start,
    /// stop) shows them before it goes on, also when it is a command's last; a handler that blocks (a
    /// standard error nobody reads) holds the step no longer than that.
    func drainLog() async {
        let drained = drainStarted()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                _ = drained.wait(timeout: .now() + Self.logDrainBound)
                continuation.resume()
            }
        }
    }

    /// The same, blocking this thread (one that blocks already, a registration's).
    func drainLogBlocking() {
        _ = drainStarted().wait(timeout: .now() + Self.logDrainBound)
    }

    /// The longest a step waits for the plugin's lines to be written.
    static let logDrainBound: DispatchTimeInterval = .seconds(2)

    /// A group left once every line handed to the writer before now is written.
    private func drainStarted() -> DispatchGroup {
        let drained = DispatchGroup()
        drained.enter()
        logWriter.async { drained.leave() }
        return drained
    }

    /// What the plugin's requirements are served from, once the host started it: a restarted child's
    /// plugin is started on the same.
    var lent: ServiceResolver? { served.withLock { $0.services } }

    /// What a child that asks for `name` gets: a service its plugin declared it requires, from what
    /// the host serves now, the host's log or the plugin's settings.
    func serve(_ name: String) async throws -> PluginActorSystem.Served {
        let served = served.withLock { $0 }
        if name == HostLogService.name, let log = served.log { return (log, HostLogService.self) }
        if name == HostServedCallService.name, let calls = served.calls { return (calls, HostServedCallService.self) }
        if name == HostSettingsService.name, let settings = served.settings { return (settings, HostSettingsService.self) }
        guard let contract = served.requires[name] else {
            throw ChildRefusal(description: "'\(name)' is not among the keys the plugin declared it requires")
        }
        guard let services = served.services else {
            throw ChildRefusal(description: "the plugin is not started")
        }
        guard let actor = try await services.anyService(storeKey: name) as? any DistributedActor else {
            throw ChildRefusal(description: "the service '\(name)' is not a distributed actor")
        }
        return (actor, contract)
    }
}
