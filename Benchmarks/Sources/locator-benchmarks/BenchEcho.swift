import Distributed
import FixtureRemoteContracts
import PluginActors

/// The contract of the call cases: one method, a small struct in and the same struct out (the fixtures'
/// `EchoMessage`, the argument of `Echo.echo`). The benchmark's own, so that both of its processes (it
/// serves as its own peer) hold it without loading a plugin.
@Resolvable
public protocol BenchEcho: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
    /// `message`, unchanged.
    distributed func echo(_ message: EchoMessage) -> EchoMessage
    /// How many bytes came: a large argument one way, a small result back (``PayloadCases``).
    distributed func count(_ bytes: [UInt8]) -> Int
}

/// What the peer process serves.
distributed actor BenchEchoService: BenchEcho {
    typealias ActorSystem = PluginActorSystem

    distributed func echo(_ message: EchoMessage) -> EchoMessage { message }
    distributed func count(_ bytes: [UInt8]) -> Int { bytes.count }
}

extension EchoMessage {
    /// The message every call case sends: a few short fields, as a typical small call carries.
    static let bench = EchoMessage(text: "hello", number: 42, tags: ["a", "b"])
}

/// The name the peer serves the echo service under.
let benchEchoName = "bench.echo"
