/// Why a call's arguments could not be read: answered as ``Frame/Failure/Reason/invalidMessage``.
struct CallArgumentsInvalid: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
