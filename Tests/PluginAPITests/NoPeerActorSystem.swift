import Distributed

/// An actor system whose every actor lives in a process that is not there: `resolve` always makes a
/// stub (a proxy), and every call on one fails with ``NoPeer``. Enough to tell a proxy from the actor
/// itself, and to see a call on it reach the system.
final class NoPeerActorSystem: DistributedActorSystem {
    typealias ActorID = String
    typealias SerializationRequirement = any Codable
    typealias InvocationEncoder = Recorder
    typealias InvocationDecoder = Reader
    typealias ResultHandler = Results

    /// What every call on a stub of this system throws: the name of the call.
    struct NoPeer: Error, Equatable {
        let target: String
    }

    func resolve<Act: DistributedActor>(id: String, as actorType: Act.Type) throws -> Act? where Act.ID == String {
        nil
    }

    func assignID<Act: DistributedActor>(_ actorType: Act.Type) -> String where Act.ID == String { "local" }
    func actorReady<Act: DistributedActor>(_ actor: Act) where Act.ID == String {}
    func resignID(_ id: String) {}
    func makeInvocationEncoder() -> Recorder { Recorder() }

    func remoteCall<Act: DistributedActor, Err: Error, Res: Codable>(
        on actor: Act, target: RemoteCallTarget, invocation: inout Recorder, throwing: Err.Type, returning: Res.Type
    ) async throws -> Res where Act.ID == String {
        throw NoPeer(target: target.identifier)
    }

    func remoteCallVoid<Act: DistributedActor, Err: Error>(
        on actor: Act, target: RemoteCallTarget, invocation: inout Recorder, throwing: Err.Type
    ) async throws where Act.ID == String {
        throw NoPeer(target: target.identifier)
    }

    /// Records nothing: no call of this system is ever sent.
    struct Recorder: DistributedTargetInvocationEncoder {
        typealias SerializationRequirement = any Codable
        mutating func recordGenericSubstitution<T>(_ type: T.Type) {}
        mutating func recordArgument<Value: Codable>(_ argument: RemoteCallArgument<Value>) throws {}
        mutating func recordErrorType<E: Error>(_ type: E.Type) {}
        mutating func recordReturnType<R: Codable>(_ type: R.Type) throws {}
        mutating func doneRecording() {}
    }

    /// Decodes nothing: no call of this system is ever received.
    struct Reader: DistributedTargetInvocationDecoder {
        typealias SerializationRequirement = any Codable
        mutating func decodeGenericSubstitutions() -> [any Any.Type] { [] }
        mutating func decodeNextArgument<Argument: Codable>() throws -> Argument { throw NoPeer(target: "decode") }
        mutating func decodeErrorType() -> (any Any.Type)? { nil }
        mutating func decodeReturnType() -> (any Any.Type)? { nil }
    }

    /// Never handed a result: nothing is executed here.
    struct Results: DistributedTargetInvocationResultHandler {
        typealias SerializationRequirement = any Codable
        func onReturn<Success: Codable>(value: Success) async throws {}
        func onReturnVoid() async throws {}
        func onThrow<Err: Error>(error: Err) async throws {}
    }
}
