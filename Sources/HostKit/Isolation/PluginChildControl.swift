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
let pluginChildCallTimeoutVariable = "SWIFT_PLUGIN_CALL_TIMEOUT_MS"

/// Why the child refused a request: the plugin load error's text.
struct ChildRefusal: Error, Codable, CustomStringConvertible {
    let description: String
}

/// The file the host asks its child to load: the one its discovery checked.
struct ChildLoadRequest: Codable, Sendable {
    /// The file as the host's discovery checked it: the child checks the file again, and refuses it
    /// if it is not the same file with the same contents (``PluginCandidate/identity``).
    let candidate: PluginCandidate
    /// How long the plugin's start hook may take.
    let startTimeout: Duration
}

/// What the child's plugin declares, as types that cross a process: names, mangled type names.
struct ChildPluginDescription: Codable, Sendable {
    struct Key: Codable, Sendable {
        let storeKey: String
        /// The mangled name of the key's type, for a distributed key; nil for a plain key.
        let keyType: String?
        /// How the key reads in errors (`'greeter' (any Greeter)`).
        let text: String
    }

    /// A library the plugin was built against, as its header records it.
    struct Library: Codable, Sendable {
        let name: String
        /// ``LibraryVersion/encoded``.
        let version: UInt64
    }

    let name: String
    let version: String
    let provides: [Key]
    let requires: [Key]
    /// The libraries the plugin was built against, PluginAPI first.
    let libraries: [Library]
}
