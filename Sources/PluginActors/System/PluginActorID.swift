/// The name of a distributed actor of a plugin: which process serves it and under which name.
///
/// IDs are names, not addresses: a service served from a plugin's own process is named by the
/// plugin's process (`peer`) and the store key of its slot (`name`), so a proxy made before that
/// process was restarted reaches the restarted one. An actor made in this process has an empty `peer`.
public struct PluginActorID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The process that serves the actor, as this process knows it (a plugin's name, or `host` in a
    /// plugin's process); empty for an actor of this process.
    public let peer: String
    /// The actor's name in that process: the store key of the service's slot.
    public let name: String

    /// The actor `name` served by `peer`.
    public init(peer: String, name: String) {
        self.peer = peer
        self.name = name
    }

    /// `name@peer`, or `name` for an actor of this process.
    public var description: String { peer.isEmpty ? name : "\(name)@\(peer)" }
}
