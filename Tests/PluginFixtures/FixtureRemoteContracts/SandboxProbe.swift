public import Distributed
public import PluginActors
public import PluginAPI

/// A service that tries, from the process that serves it, what a plugin may try against its host:
/// each door a line `KIND TARGET` (`read /etc/shadow`, `tcp 127.0.0.1:8080`, `ptrace 1234`), each
/// answered `allowed` or `denied: REASON`. The sandbox's tests call it with the sandbox on and off.
@Resolvable
public protocol SandboxProbe: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
    /// Tries each of `doors` now, in order; what each did.
    distributed func attempt(_ doors: [String]) -> [String]
    /// What the doors of the plugin's `doors` setting did when its start hook tried them.
    distributed func startAttempts() -> [String]
}

extension RemoteKeys {
    /// The sandbox probe, served from a process of its own.
    public static let sandboxProbe = DistributedServiceEasyKey<any SandboxProbe, $SandboxProbe<PluginActorSystem>>(name: "fixture.sandbox-probe")
}
