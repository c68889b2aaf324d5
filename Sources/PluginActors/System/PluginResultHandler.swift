import Distributed

/// Sends a served call's outcome back to the process that called: its value, nothing, or the error
/// the service threw (its type name and text). Not for plugin code.
public struct PluginResultHandler: DistributedTargetInvocationResultHandler {
    public typealias SerializationRequirement = any Codable

    /// Sends one reply frame of the call.
    let reply: @Sendable (Frame.Kind, [UInt8]) -> Void
    /// Hears a failure's type and text as it is sent (a served call timed for its host, ``PluginActorSystem/ServedCall``).
    var noteFailure: (@Sendable (String) -> Void)?

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

    /// Sends the error's type name and description; or, for a call that failed before its method
    /// ran, why (`callFailure(_:)`): the Distributed runtime hands those to this handler, not to
    /// the code that asked it to run the call.
    public func onThrow<Err: Error>(error: Err) async throws {
        if let (reason, message) = Self.callFailure(error) {
            onFailure(reason, type: "", message: message)
        } else {
            onFailure(.thrown, type: String(reflecting: type(of: error as Any)), message: String(describing: error))
        }
    }

    /// Why a call failed before its method ran, if `error` says so: its arguments could not be read
    /// (``Frame/Failure/Reason/invalidMessage``), or this process has no such method, as when the caller
    /// was built against a release of the contract that added it (``Frame/Failure/Reason/notServed``).
    /// Not the service's own error, which the caller should not take for one.
    static func callFailure(_ error: any Error) -> (Frame.Failure.Reason, String)? {
        switch error {
        case let invalid as CallArgumentsInvalid:
            (.invalidMessage, invalid.reason)
        case let missing as ExecuteDistributedTargetError where missing.errorCode == .targetAccessorNotFound:
            (.notServed, "the contract this process was built against has no such method (\(missing.message))")
        case let missing as ExecuteDistributedTargetError:
            (.notServed, missing.message)
        default:
            nil
        }
    }

    func onFailure(_ reason: Frame.Failure.Reason, type: String, message: String) {
        noteFailure?(String((type.isEmpty ? message : "\(type): \(message)").prefix(Frame.maximumText)))
        var bytes: [UInt8] = []
        let failure = Frame.Failure(reason: reason, type: String(type.prefix(Frame.maximumText)),
                                    message: String(message.prefix(Frame.maximumText)))
        // A struct of two strings and a byte always encodes; an empty body reads as "no details".
        try? WireFormat.encode(failure, into: &bytes)
        reply(.failure, bytes)
    }
}
