import Distributed
import Synchronization

/// The actor system of plugin services that can be served from a process of their own.
///
/// A contract that can cross a process is a `@Resolvable` distributed-actor protocol; a plugin
/// serves it with a distributed actor of this system:
///
/// ```swift
/// distributed actor EnglishGreeter: Greeter {
///     typealias ActorSystem = PluginActorSystem
///     init() { actorSystem = .shared }
///     distributed func greet(_ name: String) -> String { "Hello, \(name)!" }
/// }
/// ```
///
/// In the host's process, such a service is handed out as itself: a call is an actor call, nothing
/// is encoded. When the host runs the plugin in a process of its own, the host's slot hands out a
/// proxy instead, and each call travels over a Unix stream socket to that process and back, its
/// arguments and result in a compact binary encoding. Such a call can fail as no local call can:
/// with a ``PluginActorError`` that names the process (it ended, it did not answer in time, it
/// threw). Arguments and results are `Codable & Sendable`; every call is `async throws`.
public final class PluginActorSystem: DistributedActorSystem, Sendable {
    public typealias ActorID = PluginActorID
    public typealias SerializationRequirement = any Codable
    public typealias InvocationEncoder = PluginInvocationEncoder
    public typealias InvocationDecoder = PluginInvocationDecoder
    public typealias ResultHandler = PluginResultHandler

    /// The process's system: the one every plugin's actors and every proxy use.
    public static let shared = PluginActorSystem()

    enum Peer {
        case connected(PeerConnection)
        /// Its process ended and calls wait for its successor.
        case held(PeerHold)
        case down(PluginActorError)
    }

    let peers = Lock<[String: Peer]>([:])
    /// Each peer's `callEnded` (``connect(peer:socket:callTimeout:serve:endReason:callEnded:callsWaitForSuccessor:)``),
    /// kept past its connections: a call that fails before any connection carries it (its process in a
    /// crash loop's pause, withdrawn, or not back in time) is counted as one that failed on the way.
    let callHooks = Lock<[String: CallEnded]>([:])
    typealias CallEnded = @Sendable (_ service: String, _ method: String, _ outcome: String, _ duration: Duration) -> Void
    /// Hears of each call this process served (``observeServedCalls(_:)``); nil: nothing is timed.
    let servedObserver = Lock<ServedObserver?>(nil)
    typealias ServedObserver = @Sendable (ServedCall) -> Void
    private let actorCount = Atomic<UInt64>(0)
    let waiterCount = Atomic<UInt64>(0)

    /// A system of its own, apart from ``shared`` (tests that stand for two processes in one).
    @_spi(HostKit)
    public init() {}

    // MARK: DistributedActorSystem

    /// Nil for every ID: an actor of this process is handed out as itself by whoever made it, so
    /// whatever is resolved by ID is served by another process, and gets a proxy.
    public func resolve<Act>(id: PluginActorID, as actorType: Act.Type) throws -> Act?
    where Act: DistributedActor, Act.ID == PluginActorID {
        nil
    }

    /// A name of this process (empty peer) for a new actor of a plugin.
    public func assignID<Act>(_ actorType: Act.Type) -> PluginActorID
    where Act: DistributedActor, Act.ID == PluginActorID {
        let number = actorCount.add(1, ordering: .relaxed).newValue
        return PluginActorID(peer: "", name: "actor-\(number)")
    }

    /// Nothing to do: another process reaches an actor of this one by its service's name, not its ID.
    public func actorReady<Act>(_ actor: Act) where Act: DistributedActor, Act.ID == PluginActorID {}

    /// Nothing to do (see ``actorReady(_:)``).
    public func resignID(_ id: PluginActorID) {}

    /// A new, empty record of a call's arguments.
    public func makeInvocationEncoder() -> PluginInvocationEncoder {
        PluginInvocationEncoder()
    }

    /// Sends the call to the process that serves `actor` and returns its result.
    public func remoteCall<Act, Err, Res>(on actor: Act, target: RemoteCallTarget, invocation: inout PluginInvocationEncoder,
                                          throwing: Err.Type, returning: Res.Type) async throws -> Res
    where Act: DistributedActor, Act.ID == PluginActorID, Err: Error, Res: Codable {
        let peer = actor.id.peer
        switch try await send(to: actor.id, target: target, invocation: &invocation) {
        case let .value(bytes):
            do {
                return try WireFormat.decode(Res.self, from: bytes)
            } catch {
                throw PluginActorError.invalidMessage(peer: peer, reason: "the result of \(TargetName.readable(target.identifier)) "
                                                      + "could not be decoded as \(Res.self): \(error)")
            }
        case .void:
            throw PluginActorError.invalidMessage(peer: peer, reason: "\(TargetName.readable(target.identifier)) returned "
                                                  + "nothing where \(Res.self) was expected")
        case let .failure(failure):
            throw Self.error(failure, peer: peer, target: target)
        }
    }

    /// Sends the call to the process that serves `actor` and waits for it to return.
    public func remoteCallVoid<Act, Err>(on actor: Act, target: RemoteCallTarget, invocation: inout PluginInvocationEncoder,
                                         throwing: Err.Type) async throws
    where Act: DistributedActor, Act.ID == PluginActorID, Err: Error {
        switch try await send(to: actor.id, target: target, invocation: &invocation) {
        case .value, .void: return
        case let .failure(failure): throw Self.error(failure, peer: actor.id.peer, target: target)
        }
    }

    private func send(to id: PluginActorID, target: RemoteCallTarget,
                      invocation: inout PluginInvocationEncoder) async throws -> PeerConnection.Reply {
        if let failure = invocation.failure {
            throw PluginActorError.invalidMessage(peer: id.peer, reason: "\(TargetName.readable(target.identifier)): \(failure)")
        }
        return try await forward(to: id, target: target.identifier, arguments: invocation.arguments)
    }

    /// Sends a call, its arguments encoded already, to the process that serves `id`, and waits for its reply.
    /// A call that was never sent (its process ended before it went out) goes to the process that
    /// takes its place, as a call made a moment later would. It carries the task's headers
    /// (``PluginCallContext``): a call passed on carries those it came with.
    func forward(to id: PluginActorID, target: String, arguments: [UInt8]) async throws -> PeerConnection.Reply {
        let started = ContinuousClock.now
        let headers = PluginCallContext.headers
        // Checked here, on the path a call passed on takes too, not cut short by the frame.
        if let refusal = PluginCallContext.refusal(of: headers) {
            countFailure(of: id, target: target, since: started)
            throw PluginActorError.invalidMessage(peer: id.peer, reason: "\(TargetName.readable(target)): \(refusal)")
        }
        var timeout = Self.callTimeout
        var undelivered: (connection: PeerConnection, reason: PluginActorError)?
        while true {
            let connection: PeerConnection
            let routed: Route
            do {
                routed = try route(id)
            } catch {
                countFailure(of: id, target: target, since: started)
                throw error
            }
            switch routed {
            case let .ready(ready):
                // The peer still names the connection that could not send it: it fails as that one did.
                if let undelivered, undelivered.connection === ready {
                    ready.callEnded?(id.name, TargetName.method(target), "failed", ContinuousClock.now - started)
                    throw undelivered.reason
                }
                connection = ready
            case let .held(holdTimeout):
                // The wait counts against the call's timeout: none left, and it is not sent at all.
                let whole = Self.callTimeout ?? holdTimeout
                let deadline = started + whole
                do {
                    connection = try await successor(for: id, before: deadline)
                } catch {
                    countFailure(of: id, target: target, since: started)
                    throw error
                }
                let left = deadline - .now
                guard left > .zero else {
                    countFailure(of: id, target: target, since: started)
                    throw PluginActorError.timedOut(peer: id.peer, target: TargetName.readable(target), after: whole)
                }
                timeout = left
            }
            do {
                let reply = try await connection.call(name: id.name, target: target, arguments: arguments, headers: headers,
                                                      timeout: timeout)
                if let callEnded = connection.callEnded {
                    let outcome = switch reply {
                    case .value, .void: "answered"
                    case let .failure(failure): failure?.reason == .thrown ? "threw" : "failed"
                    }
                    callEnded(id.name, TargetName.method(target), outcome, ContinuousClock.now - started)
                }
                return reply
            } catch let error as PeerConnection.NotDelivered {
                undelivered = (connection, error.reason)
            } catch {
                connection.callEnded?(id.name, TargetName.method(target), "failed", ContinuousClock.now - started)
                throw error
            }
        }
    }

    /// Counts a call that no connection carried to its end by its peer's hook: it failed before. (A
    /// method, not a generic local function in `forward`: that crashed the release build's IR
    /// generation in Swift 6.3.1.)
    private func countFailure(of id: PluginActorID, target: String, since started: ContinuousClock.Instant) {
        callHooks.withLock { $0[id.peer] }?(id.name, TargetName.method(target), "failed", ContinuousClock.now - started)
    }

    private static func error(_ failure: Frame.Failure?, peer: String, target: RemoteCallTarget) -> PluginActorError {
        let readable = TargetName.readable(target.identifier)
        guard let failure else { return .invalidMessage(peer: peer, reason: "\(readable) failed with a reply that could not be read") }
        return switch failure.reason {
        case .thrown: .remoteFailure(peer: peer, type: failure.type, message: failure.message)
        case .notServed: .notServed(peer: peer, target: readable, reason: failure.message)
        case .invalidMessage: .invalidMessage(peer: peer, reason: "\(readable): \(failure.message)")
        }
    }
}
