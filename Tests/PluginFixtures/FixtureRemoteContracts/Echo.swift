public import Distributed
public import PluginActors
public import PluginAPI

/// What the echo service hands back as it got it: a small struct of the kinds of fields calls carry.
public struct EchoMessage: Codable, Sendable, Equatable {
    public var text: String
    public var number: Int
    public var tags: [String]

    public init(text: String, number: Int, tags: [String]) {
        self.text = text
        self.number = number
        self.tags = tags
    }
}

/// What ``Echo/fail(_:)`` throws: an error of the contract's own, `Codable` so that it can cross a process.
public struct EchoFailure: Error, Codable, Sendable, Equatable {
    public let text: String

    public init(text: String) {
        self.text = text
    }
}

/// A service that does, on request, what a plugin served from a process of its own may do to that
/// process: answer, throw, crash, exit, hang, take memory or CPU. The tests of such plugins call it.
@Resolvable
public protocol Echo: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
    /// `message`, unchanged.
    distributed func echo(_ message: EchoMessage) -> EchoMessage
    /// Nothing, at once.
    distributed func ping()
    /// Throws ``EchoFailure`` with `text`.
    distributed func fail(_ text: String) throws
    /// Crashes the process that serves it (`fatalError`).
    distributed func crash()
    /// Ends the process that serves it with `status`.
    distributed func exit(_ status: Int32)
    /// Never returns, and ignores cancellation: a stuck service. It blocks the thread it runs on
    /// (sleeping), and so the actor: a later call of the same service waits behind it.
    distributed func hang()
    /// Takes and touches `megabytes` MiB of memory, kept until the process ends.
    distributed func allocate(megabytes: Int)
    /// Keeps a CPU busy for `seconds` of its own CPU time.
    distributed func spin(seconds: Int)
    /// The id of the process that serves it.
    distributed func pid() -> Int32
}

/// The keys of the contract.
public enum RemoteKeys {
    /// The echo service, served in process or from a process of its own.
    public static let echo = DistributedServiceEasyKey<any Echo, $Echo<PluginActorSystem>>(name: "fixture.echo")
}
