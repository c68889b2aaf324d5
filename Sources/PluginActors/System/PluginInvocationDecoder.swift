import Distributed

/// Reads a call's arguments, as ``PluginInvocationEncoder`` wrote them, for the service that
/// answers it. Every length is checked against the bytes there: the caller is another process.
/// Not for plugin code.
public struct PluginInvocationDecoder: DistributedTargetInvocationDecoder {
    public typealias SerializationRequirement = any Codable

    private var reader: FrameReader
    private var remaining: UInt16
    /// The type of the actor that serves the call.
    private let actorType: Any.Type

    /// The decoder of an argument section of a call on an actor of type `actorType`; throws if its
    /// count is missing.
    init(arguments: ArraySlice<UInt8>, actorType: Any.Type) throws {
        reader = FrameReader(arguments)
        self.actorType = actorType
        do {
            remaining = try reader.integer(UInt16.self)
        } catch {
            throw CallArgumentsInvalid(reason: "no argument count")
        }
    }

    /// The serving actor's type: a call through a `$Contract` stub names the contract's requirement,
    /// generic over the actor that conforms (the caller recorded its stub there, see
    /// ``PluginInvocationEncoder/recordGenericSubstitution(_:)``).
    public mutating func decodeGenericSubstitutions() throws -> [Any.Type] { [actorType] }

    /// The next argument, decoded as the method's parameter type.
    public mutating func decodeNextArgument<Argument: Codable>() throws -> Argument {
        guard remaining > 0 else { throw CallArgumentsInvalid(reason: "fewer arguments than \(Argument.self) needs") }
        remaining -= 1
        let bytes: ArraySlice<UInt8>
        do {
            bytes = try reader.bytes(Int(try reader.integer(UInt32.self)))
        } catch {
            throw CallArgumentsInvalid(reason: "an argument's bytes are cut short")
        }
        do {
            return try WireFormat.decode(Argument.self, from: bytes)
        } catch {
            throw CallArgumentsInvalid(reason: "an argument of type \(Argument.self) could not be decoded: \(error)")
        }
    }

    /// Not recorded (see ``PluginInvocationEncoder/recordErrorType(_:)``).
    public mutating func decodeErrorType() throws -> Any.Type? { nil }

    /// Not recorded (see ``PluginInvocationEncoder/recordReturnType(_:)``).
    public mutating func decodeReturnType() throws -> Any.Type? { nil }
}
