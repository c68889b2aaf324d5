import Distributed
@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors

/// The settings of one plugin placed in a process of its own, as the host serves them to that
/// process (under ``name``): each key is read through the settings the host lent the plugin's
/// registration here, so the child sees the values the host records, and a reload that finds one
/// changed restarts the plugin in a new process (``PluginHost``'s `reconfigured`). The child reads
/// its own plugin's settings only: which plugin is the host's choice, not the child's.
distributed actor HostSettingsService {
    typealias ActorSystem = PluginActorSystem

    /// The name the host serves it under, to each of its children.
    static let name = "__settings"

    private let settings: PluginSettings
    /// The keys the child asked for: each is remembered by the host for the plugin's life (its answer
    /// is what a reload compares), so a child may ask for at most ``keyLimit`` keys of at most
    /// ``keyLength`` bytes. A frame may be 64 MiB: without a bound, a child could make the host keep
    /// any amount of memory.
    private var asked: Set<String> = []
    static let keyLimit = 1024, keyLength = 1024

    init(actorSystem: PluginActorSystem, settings: PluginSettings) {
        self.actorSystem = actorSystem
        self.settings = settings
    }

    /// The value of `key`, as text, or nil if it is unset; throws a ``ChildRefusal`` with the reason
    /// it cannot be read (also for a key too long, or one more than the keys a plugin may read).
    distributed func value(forKey key: String) throws -> String? {
        guard key.utf8.count <= Self.keyLength else {
            throw ChildRefusal(description: "a setting's key is at most \(Self.keyLength) bytes long; this one has \(key.utf8.count)")
        }
        if !asked.contains(key) {
            guard asked.count < Self.keyLimit else {
                throw ChildRefusal(description: "a plugin reads at most \(Self.keyLimit) settings")
            }
            asked.insert(key)
        }
        do {
            return try settings.string(forKey: key)
        } catch {
            throw ChildRefusal(description: "\(error)")
        }
    }
}
