internal import DynamicLoading
import Distributed
@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors

/// The child's published locator: what the host's calls reach, by store key.
final class ChildServices: Sendable {
    /// The name the child knows its host by.
    static let hostPeer = "host"

    /// The locator published, and the contract's stub of each key its plugin provides.
    private let served = Lock<(locator: ServiceLocator, contracts: [String: any DistributedActor.Type])?>(nil)

    /// From now on, calls reach the services of `published`, each by the contract its key declares.
    func serve(_ published: ServiceLocator, provides: [DeclaredKey]) {
        let contracts = Dictionary(provides.compactMap { key in key.stubType.map { (key.storeKey, $0) } }) { first, _ in first }
        served.withLock { $0 = (published, contracts) }
    }

    /// The distributed actor in the slot `name`, made if it was not, and its contract's stub.
    func service(named name: String) async throws -> PluginActorSystem.Served {
        guard let (published, contracts) = served.withLock({ $0 }) else {
            throw ChildRefusal(description: "its plugin has not started yet")
        }
        guard let contract = contracts[name] else {
            throw ChildRefusal(description: "'\(name)' is not a distributed service the plugin declared")
        }
        let service = try await published.anyService(storeKey: name)
        guard let actor = service as? any DistributedActor else {
            throw ChildRefusal(description: "the service '\(name)' is not a distributed actor")
        }
        return (actor, contract)
    }
}
