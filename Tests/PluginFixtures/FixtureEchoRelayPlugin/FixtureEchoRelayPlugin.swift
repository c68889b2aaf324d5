import Distributed
import FixtureRemoteContracts
import Foundation
import Glibc
import PluginActors
import PluginAPI

/// Requires the echo service and provides an echo service of its own, `fixture.echo-relay`: so that a
/// plugin that requires a distributed service and provides one can be served from a process of its
/// own beside its provider's. Its start hook asks the echo service it requires for its process id; its
/// relay's `echo` answers with that id as the message's number, so a caller sees which provider the
/// relay was started against.
struct EchoRelayPlugin: Plugin {
    static let relay = DistributedServiceEasyKey<any Echo, $Echo<PluginActorSystem>>(name: "fixture.echo-relay")
    static let metadata = PluginMetadata(name: "fixture-echo-relay", version: "1.0.0", provides: [relay],
                                         requires: [RemoteKeys.echo])
    static let contractLibraries: [LibraryVersion] = [.pluginActors, .fixtureRemoteContracts]

    /// The id of the process that served the echo service at the start; 0 before.
    let provider = ProviderID()

    func registerServices(in registrar: ModuleRegistrar) throws {
        let provider = provider
        try registrar.addLazyService(key: Self.relay) { EchoRelay(provider: provider) }
    }

    func start(services: ServiceResolver) async throws {
        provider.value = try await services.tryService(key: RemoteKeys.echo).pid()
    }
}

/// The relay: `echo` hands back the message with the provider's process id as its number; `pid` is
/// its own process's. The rest does as little as the contract allows: this fixture is not crashed.
distributed actor EchoRelay: Echo {
    typealias ActorSystem = PluginActorSystem
    let provider: ProviderID

    init(provider: ProviderID) {
        self.provider = provider
        actorSystem = .shared
    }

    distributed func echo(_ message: EchoMessage) -> EchoMessage {
        EchoMessage(text: message.text, number: Int(provider.value), tags: message.tags)
    }

    distributed func ping() {}
    distributed func fail(_ text: String) throws { throw EchoFailure(text: text) }
    distributed func crash() {}
    distributed func exit(_ status: Int32) {}
    distributed func hang() {}
    distributed func allocate(megabytes: Int) {}
    distributed func spin(seconds: Int) {}
    distributed func pid() -> Int32 { getpid() }
}

/// A process id set once by the start hook and read by any thread. An `NSLock`, not `Mutex`: the tests
/// run under ThreadSanitizer, which does not see through `Mutex` on Linux.
final class ProviderID: @unchecked Sendable {
    private let lock = NSLock()
    private var id: Int32 = 0
    var value: Int32 {
        get { lock.withLock { id } }
        set { lock.withLock { id = newValue } }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(EchoRelayPlugin.self) }
