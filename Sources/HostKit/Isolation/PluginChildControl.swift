import Distributed
@_spi(HostKit) import PluginActors

/// What a host asks of the process it started for one plugin: the contract between the two, served
/// by the child (``PluginChild``) under the name ``PluginChildControl/serviceName``.
@Resolvable
protocol PluginChildControl: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
    /// Opens and checks the plugin file the host checked, and says what it declares. Throws (a
    /// ``ChildRefusal``) if the file is not the one the host checked, or is refused.
    distributed func load(_ request: ChildLoadRequest) async throws -> ChildPluginDescription
    /// Registers the plugin's module on a locator that serves its requirements from the host, then
    /// runs its start hook, bounded by `timeout`. Throws (a ``ChildRefusal``) if either fails.
    distributed func start(timeout: Duration) async throws
    /// Runs the plugin's shutdown hook, bounded by `timeout`; returns what went wrong, if anything.
    distributed func stop(timeout: Duration) async -> String?
    /// Answers: the host's check that the process still serves.
    distributed func ping()
}

/// The name the child serves its ``PluginChildControl`` under.
let pluginChildControlName = "__control"

/// The variable that gives the child the timeout of its calls to the host's services, in milliseconds.
let childCallTimeoutVariable = "SWIFT_PLUGIN_CALL_TIMEOUT_MS"
