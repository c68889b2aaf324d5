import Distributed
@_spi(HostKit) import PluginActors

/// What a host asks of the process it started for one plugin, served by that process under
/// ``name``: the steps of its one plugin's load, which the child's ``ChildPluginSteps`` do. The
/// host's half of the room (`Host/`) calls it, the child's half (`Child/`) serves it.
///
/// The host calls a proxy of this very type (`ChildControlService.resolve(id:using:)`), not of a
/// `@Resolvable` protocol: a call then names this type's own methods, which run on it as on any
/// distributed actor. Through an internal `@Resolvable` protocol, whose every conformer a release
/// build's optimizer sees, the child ran the stub's code on the served actor and crashed (Swift 6.3;
/// a contract library's protocols are public, and not affected). `Benchmarks/ci-smoke` runs a
/// release build of both sides.
distributed actor ChildControlService {
    typealias ActorSystem = PluginActorSystem

    /// The name the child serves it under.
    static let name = "__control"
    /// The variable that gives the child the timeout of its calls to the host's services, in milliseconds.
    static let callTimeoutVariable = "SWIFT_PLUGIN_CALL_TIMEOUT_MS"

    private let steps: ChildPluginSteps

    init(actorSystem: PluginActorSystem, steps: ChildPluginSteps) {
        self.actorSystem = actorSystem
        self.steps = steps
    }

    /// Opens and checks the plugin file the host checked, and says what it declares. Throws (a
    /// ``ChildRefusal``) if the file is not the one the host checked, or is refused.
    distributed func load(_ request: ChildLoadRequest) async throws -> ChildPluginDescription {
        try await steps.load(request)
    }

    /// A standby's load done ahead, as ``load(_:)`` would have answered it: the plugin of the load
    /// request in its environment, loaded now if it was not yet; told once. Nil if the process loads
    /// nothing ahead (no request, or an operator's file check), or that load failed: the host then
    /// asks ``load(_:)`` when it takes the process.
    distributed func loadedAhead() async -> ChildPluginDescription? {
        await steps.loadedAhead()
    }

    /// Registers the plugin's module on a locator that serves its requirements from the host; the
    /// plugin's log lines at `logLevel` (a ``PluginAPI/PluginLog/Level``'s raw value) or above go to
    /// the host's ``HostLogService``, none without; with `timesCalls`, each call its services serve
    /// is timed and told to the host's ``HostServedCallService``. Throws (a ``ChildRefusal``) if it fails.
    distributed func register(logLevel: String?, timesCalls: Bool) async throws {
        try await steps.register(logLevel: logLevel, timesCalls: timesCalls)
    }

    /// Runs the registered plugin's start hook, bounded by `timeout`. Throws (a ``ChildRefusal``) if it fails.
    distributed func start(timeout: Duration) async throws {
        try await steps.start(timeout: timeout)
    }

    /// Runs the plugin's shutdown hook, bounded by `timeout`; returns what went wrong, if anything.
    distributed func stop(timeout: Duration) async -> String? {
        await steps.stop(timeout: timeout)
    }

    /// Answers: the host's check that the process still serves.
    distributed func ping() {}
}
