import Distributed

/// Sends a served call's outcome back to the process that called: its value, nothing, or the error
/// the service threw (its type name and text). Not for plugin code.
public struct PluginResultHandler: DistributedTargetInvocationResultHandler {
    public typealias SerializationRequirement = any Codable

    /// Sends one reply frame of the call.
    let reply: @Sendable (Frame.Kind, [UInt8]) -> Void

    /// Sends the value, or (if it cannot be encoded) a failure that says so.
    public func onReturn<Success: Codable>(value: Success) async throws {
        var bytes: [UInt8] = []
        do {
            try WireFormat.encode(value, into: &bytes)
        } catch {
            onFailure(.invalidMessage, type: String(reflecting: Success.self), message: "the result could not be encoded: \(error)")
            return
        }
        reply(.value, bytes)
    }

    /// Sends that the call returned.
    public func onReturnVoid() async throws {
        reply(.void, [])
    }

    /// Sends the error's type name and description.
    public func onThrow<Err: Error>(error: Err) async throws {
        onFailure(.thrown, type: String(reflecting: type(of: error as Any)), message: String(describing: error))
    }

    func onFailure(_ reason: Frame.Failure.Reason, type: String, message: String) {
        var bytes: [UInt8] = []
        let failure = Frame.Failure(reason: reason, type: String(type.prefix(Frame.maximumText)),
                                    message: String(message.prefix(Frame.maximumText)))
        // A struct of two strings and a byte always encodes; an empty body reads as "no details".
        try? WireFormat.encode(failure, into: &bytes)
        reply(.failure, bytes)
    }
}
