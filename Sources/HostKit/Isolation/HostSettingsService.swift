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

    init(actorSystem: PluginActorSystem, settings: PluginSettings) {
        self.actorSystem = actorSystem
        self.settings = settings
    }

    /// The value of `key`, as text, or nil if it is unset; throws a ``ChildRefusal`` with the reason
    /// it cannot be read.
    distributed func value(forKey key: String) throws -> String? {
        do {
            return try settings.string(forKey: key)
        } catch {
            throw ChildRefusal(description: "\(error)")
        }
    }
}
