internal import DynamicLoading
import PluginAPI
@_spi(HostKit) import PluginActors

/// The settings a process of one plugin lends its plugin: each key the plugin reads is asked of the
/// host's ``HostSettingsService`` (once: ``PluginAPI/PluginSettings`` keeps the answer), a call
/// bounded by the process's call timeout. The plugin reads synchronously, so the call is waited for
/// on the reading thread (``BlockingCall``): its registrar and hooks run on threads of their own.
struct ChildSettingsSource: PluginSettingsSource {
    func value(forKey key: String, of plugin: String) throws -> String? {
        let id = PluginActorID(peer: ChildServices.hostPeer, name: HostSettingsService.name)
        let answer = BlockingCall.run {
            try await HostSettingsService.resolve(id: id, using: .shared).value(forKey: key)
        }
        switch answer {
        case let .success(value): return value
        case let .failure(error as ChildRefusal): throw error
        case let .failure(error): throw ChildRefusal(description: "the host did not answer: \(error)")
        }
    }
}
