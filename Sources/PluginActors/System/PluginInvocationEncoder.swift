import Distributed

/// Records a remote call's arguments in `WireFormat` (the binary encoding): what a `$Contract` stub fills before
/// ``PluginActorSystem`` sends the call. Not for plugin code.
public struct PluginInvocationEncoder: DistributedTargetInvocationEncoder {
    public typealias SerializationRequirement = any Codable

    /// A `UInt16` count, then each argument as a `UInt32` length and its bytes.
    var arguments: [UInt8] = [0, 0]
    private var count: UInt16 = 0
    /// Why an argument could not be recorded: the call then fails before anything is sent.
    var failure: String?

    init() {}

    /// Nothing to record: the one substitution a call through a `$Contract` stub records is the
    /// stub's own type, which the serving side replaces by its actor's type.
    public mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {}

    /// Appends one argument's encoding.
    public mutating func recordArgument<Value: Codable>(_ argument: RemoteCallArgument<Value>) throws {
        guard failure == nil else { return }
        let start = arguments.count
        arguments.appendLittleEndian(UInt32(0))
        do {
            try WireFormat.encode(argument.value, into: &arguments)
        } catch {
            failure = "argument '\(argument.effectiveLabel)' of type \(Value.self) could not be encoded: \(error)"
            return
        }
        arguments.patchLittleEndian(UInt32(arguments.count - start - 4), at: start)
        count += 1
    }

    /// Nothing to record: the error travels as its type name and text.
    public mutating func recordErrorType<E: Error>(_ type: E.Type) throws {}

    /// Nothing to record: the caller knows the type it decodes.
    public mutating func recordReturnType<R: Codable>(_ type: R.Type) throws {}

    /// Writes the argument count.
    public mutating func doneRecording() throws {
        arguments.patchLittleEndian(count, at: 0)
    }
}
